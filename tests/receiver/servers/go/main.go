// A receiver built with the Go kit, for tests/receiver/kits.test.ts: it takes the accepted tokens from the
// environment (RECEIVER_TOKENS, comma-separated), listens on 127.0.0.1 at a free port, prints "listening <port>" and
// "delivered <json>" for each accepted delivery (the summary of receiver/cases.json's $comment, read through the
// kit's typed records); its handler fails on a record with the field fail_the_handler.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"sort"
	"strings"

	receiver "github.com/pulumi-helpdesk/pulumi-helpdesk/receiver/go"
)

func keys(extra map[string]any) []string {
	names := []string{}
	for name := range extra {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// summary reports a delivery as receiver/cases.json's $comment says, through the typed records.
func summary(d receiver.Delivery, info receiver.DeliveryContext) (map[string]any, map[string]any) {
	var fields, extra map[string]any
	switch {
	case d.Ticket != nil:
		fields = map[string]any{"number": d.Ticket.Number, "title": d.Ticket.Title, "assignee": d.Ticket.Assignee, "state": d.Ticket.Links.State.Href}
		extra = d.Ticket.Extra
	case d.Customer != nil:
		fields = map[string]any{"email": d.Customer.Email, "firstName": d.Customer.FirstName, "custom": d.Customer.Custom}
		extra = d.Customer.Extra
	case d.Message != nil:
		fields = map[string]any{"note": d.Message.Note, "body": d.Message.Body, "ticket": d.Message.Links.Ticket.Href}
		extra = d.Message.Extra
	case d.Agent != nil:
		fields = map[string]any{"email": d.Agent.Email, "tickets": d.Agent.Links.Tickets.Href}
		extra = d.Agent.Extra
	}
	fields["extra"] = keys(extra)
	return map[string]any{"event": d.Event, "kind": d.Kind, "tokenIndex": info.TokenIndex, "fields": fields}, extra
}

func main() {
	handler, err := receiver.NewHandler(receiver.Options{
		Tokens: strings.Split(os.Getenv("RECEIVER_TOKENS"), ","),
		OnDelivery: func(_ context.Context, d receiver.Delivery, info receiver.DeliveryContext) error {
			shown, extra := summary(d, info)
			if _, fail := extra["fail_the_handler"]; fail {
				return errors.New("the handler under test fails on fail_the_handler")
			}
			line, err := json.Marshal(shown)
			if err != nil {
				return err
			}
			fmt.Println("delivered " + string(line))
			return nil
		},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("listening %d\n", listener.Addr().(*net.TCPAddr).Port)
	fmt.Fprintln(os.Stderr, http.Serve(listener, handler))
}
