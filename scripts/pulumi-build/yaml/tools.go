//go:build tools

package tools

import _ "github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml"
