// Command helpdesk-go manages help-desk webhooks on two help desks from Go, through the native provider plugin
// pulumi-resource-helpdesk and the Go SDK github.com/pulumi-helpdesk/pulumi-helpdesk/sdk/go/helpdesk.
//
// The Pulumi program is an Automation API inline program (auto.UpsertStackInlineSource): this process serves it to
// the Pulumi CLI itself, so no Go language host is needed, only the `pulumi` command on PATH.
//
//   - The default provider reads the stack's `helpdesk:*` config, as `pulumi-helpdesk login --stack <stack>` writes
//     it.
//   - The explicit provider `euHelpdesk` takes its settings from the stack's `eu:*` config, as
//     `pulumi-helpdesk login --stack <stack> --namespace eu` writes it; the secret ones stay secrets.
//
// Usage, from this folder (which holds Pulumi.yaml and the stack's Pulumi.<stack>.yaml):
//
//	go run . [-stack dev] up        creates or updates the webhooks; prints the stack outputs as JSON on stdout
//	go run . [-stack dev] destroy   removes them
//
// The state goes to the backend `pulumi login` chose (or $PULUMI_BACKEND_URL names), as for `pulumi` commands run
// in this folder; the stack's secrets are encrypted with the passphrase in $PULUMI_CONFIG_PASSPHRASE (or the file named by
// $PULUMI_CONFIG_PASSPHRASE_FILE). The engine's progress goes to stderr. A failure prints the engine's error messages
// and exits with status 1 (2 for a wrong command line).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/pulumi-helpdesk/pulumi-helpdesk/sdk/go/helpdesk"
	"github.com/pulumi/pulumi/sdk/v3/go/auto"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/events"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optdestroy"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optup"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
)

// project is the `name` of Pulumi.yaml in this folder.
const project = "helpdesk-go"

// program declares one webhook on each help desk.
func program(ctx *pulumi.Context) error {
	receivers := config.New(ctx, "").Get("receiverBaseUrl")
	if receivers == "" {
		receivers = "https://hooks.example.test"
	}

	// A webhook of the help desk that `pulumi-helpdesk login` signed in to (the default provider).
	ticketsOpened, err := helpdesk.NewWebhook(ctx, "ticketsOpened", &helpdesk.WebhookArgs{
		Event: helpdesk.WebhookEventTicketOpened,
		Url:   pulumi.String(receivers + "/tickets/opened"),
	})
	if err != nil {
		return err
	}

	// The second help desk: an explicit provider with the `eu:*` settings.
	eu := config.New(ctx, "eu")
	baseURL, err := eu.Try("baseUrl")
	if err != nil {
		return fmt.Errorf("%w: sign in to the second help desk with `pulumi-helpdesk login --stack %s --namespace eu`", err, ctx.Stack())
	}
	accessToken, err := eu.TrySecret("accessToken")
	if err != nil {
		return fmt.Errorf("%w: sign in to the second help desk with `pulumi-helpdesk login --stack %s --namespace eu`", err, ctx.Stack())
	}
	args := &helpdesk.ProviderArgs{BaseUrl: pulumi.String(baseURL), AccessToken: accessToken}
	// The optional settings are passed only when set: an empty value is not an absent one.
	if value, err := eu.TrySecret("refreshToken"); err == nil {
		args.RefreshToken = value
	}
	if value, err := eu.TrySecret("clientSecret"); err == nil {
		args.ClientSecret = value
	}
	if value, err := eu.Try("clientId"); err == nil {
		args.ClientId = pulumi.String(value)
	}
	if value, err := eu.Try("tokenExpiresAt"); err == nil {
		args.TokenExpiresAt = pulumi.String(value)
	}
	euHelpdesk, err := helpdesk.NewProvider(ctx, "euHelpdesk", args)
	if err != nil {
		return err
	}

	euCustomerReplied, err := helpdesk.NewWebhook(ctx, "euCustomerReplied", &helpdesk.WebhookArgs{
		Event: helpdesk.WebhookEventCustomerReplied,
		Url:   pulumi.String(receivers + "/eu/replies"),
	}, pulumi.Provider(euHelpdesk))
	if err != nil {
		return err
	}

	ctx.Export("ticketsOpenedId", ticketsOpened.ID())
	ctx.Export("euCustomerRepliedId", euCustomerReplied.ID())
	ctx.Export("euCustomerRepliedState", euCustomerReplied.State)
	return nil
}

func main() {
	stackName := flag.String("stack", "dev", "the stack (its config: Pulumi.<stack>.yaml in this folder)")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: %s [-stack name] up|destroy\n", os.Args[0])
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 || !slices.Contains([]string{"up", "destroy"}, flag.Arg(0)) {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(context.Background(), flag.Arg(0), *stackName); err != nil {
		fmt.Fprintf(os.Stderr, "helpdesk-go: %s\n", err)
		os.Exit(1)
	}
}

// run opens the stack of this folder's project with the inline program and runs the command on it.
func run(ctx context.Context, command, stackName string) error {
	if os.Getenv("PULUMI_CONFIG_PASSPHRASE") == "" && os.Getenv("PULUMI_CONFIG_PASSPHRASE_FILE") == "" {
		return errors.New("set PULUMI_CONFIG_PASSPHRASE (or PULUMI_CONFIG_PASSPHRASE_FILE): the passphrase of the stack's secrets, the one `pulumi-helpdesk login` used")
	}
	workDir, err := os.Getwd()
	if err != nil {
		return err
	}
	// With a WorkDir that holds Pulumi.yaml, the Automation API uses that project file and the stack's
	// Pulumi.<stack>.yaml there, instead of making up a project in a temporary folder.
	stack, err := auto.UpsertStackInlineSource(ctx, stackName, project, program, auto.WorkDir(workDir))
	if err != nil {
		return fmt.Errorf("opening stack %q in %s: %w", stackName, workDir, err)
	}

	diagnostics := make(chan events.EngineEvent)
	collected := make(chan []string, 1)
	go collectErrors(diagnostics, collected)
	var result auto.UpResult
	switch command {
	case "up":
		result, err = stack.Up(ctx, optup.ProgressStreams(os.Stderr), optup.EventStreams(diagnostics))
	case "destroy":
		_, err = stack.Destroy(ctx, optdestroy.ProgressStreams(os.Stderr), optdestroy.EventStreams(diagnostics))
	}
	// The Automation API closes the event channel when the engine's event stream ends; a CLI that failed before
	// the engine started never opens that stream, and its error is then in err.
	var messages []string
	select {
	case messages = <-collected:
	case <-time.After(5 * time.Second):
	}
	if err == nil {
		if command == "up" {
			return printOutputs(result.Outputs)
		}
		return nil
	}
	if len(messages) == 0 {
		return fmt.Errorf("%s failed: %w", command, err)
	}
	return fmt.Errorf("%s failed:\n  %s", command, strings.Join(messages, "\n  "))
}

// collectErrors gathers the engine's error diagnostics (a provider's or the program's error, then the engine's
// summary), each once and in order, and sends them to done when the event stream ends.
func collectErrors(stream <-chan events.EngineEvent, done chan<- []string) {
	var messages []string
	for event := range stream {
		if event.DiagnosticEvent == nil || event.DiagnosticEvent.Severity != "error" {
			continue
		}
		message := strings.TrimSpace(event.DiagnosticEvent.Message)
		if message != "" && !slices.Contains(messages, message) {
			messages = append(messages, message)
		}
	}
	done <- messages
}

// printOutputs writes the stack outputs as one JSON object on stdout; a secret output shows as "[secret]".
func printOutputs(outputs auto.OutputMap) error {
	shown := make(map[string]any, len(outputs))
	for name, output := range outputs {
		if output.Secret {
			shown[name] = "[secret]"
		} else {
			shown[name] = output.Value
		}
	}
	encoder := json.NewEncoder(os.Stdout)
	encoder.SetIndent("", "  ")
	return encoder.Encode(shown)
}
