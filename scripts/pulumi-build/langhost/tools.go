//go:build tools

package tools

import (
	_ "github.com/pulumi/pulumi/sdk/v3/nodejs/cmd/pulumi-language-nodejs"
	_ "github.com/pulumi/pulumi/sdk/v3/python/cmd/pulumi-language-python"
)
