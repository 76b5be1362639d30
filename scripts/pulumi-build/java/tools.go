//go:build tools

package tools

import (
	_ "github.com/pulumi/pulumi-java/pkg/cmd/pulumi-java-gen"
	_ "github.com/pulumi/pulumi-java/pkg/cmd/pulumi-language-java"
)
