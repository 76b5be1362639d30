// A receiver of help-desk deliveries built with the Go kit (standard library only): it accepts a POST only when the
// url carries one of the delivery tokens it is given (HELPDESK_DELIVERY_TOKENS, comma-separated: several during a
// rotation), and prints one line per delivery, read from the record typed by its event. Run: PORT=8000 go run .
package main

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"os"
	"strings"

	receiver "github.com/pulumi-helpdesk/pulumi-helpdesk/receiver/go"
)

func describe(d receiver.Delivery) string {
	switch {
	case d.Ticket != nil:
		return fmt.Sprintf("ticket #%d", d.Ticket.Number)
	case d.Customer != nil:
		return "customer " + d.Customer.FirstName
	case d.Agent != nil:
		return "agent " + d.Agent.FirstName
	default:
		return fmt.Sprintf("message note=%t", d.Message.Note)
	}
}

func main() {
	handler, err := receiver.NewHandler(receiver.Options{
		Tokens: strings.Split(os.Getenv("HELPDESK_DELIVERY_TOKENS"), ","),
		OnDelivery: func(_ context.Context, d receiver.Delivery, _ receiver.DeliveryContext) error {
			fmt.Printf("%s %s\n", d.Event, describe(d))
			return nil
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	port := os.Getenv("PORT")
	if port == "" {
		port = "8000"
	}
	fmt.Printf("listening on 127.0.0.1:%s\n", port)
	log.Fatal(http.ListenAndServe("127.0.0.1:"+port, handler))
}
