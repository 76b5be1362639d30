package receiver

// The Go receiver kit's own units: the token check never fails and never accepts a token it was not given; tokens
// and options are checked when a handler is made, naming a token by its index only; the handler refuses a forged
// POST without reading its body and an over-cap body while it is read; OnDelivery's failure (an error or a panic) is
// a 500 with no detail; typed dispatch; and the checks of nullable fields, which the records may come to use.

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"math/rand"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._~-"

func randomToken(r *rand.Rand) string {
	token := make([]byte, 22+r.Intn(43))
	for i := range token {
		token[i] = alphabet[r.Intn(len(alphabet))]
	}
	return string(token)
}

func TestVerifyNeverAcceptsATokenItWasNotGiven(t *testing.T) {
	r := rand.New(rand.NewSource(44))
	noise := []rune(" !\"#$%&'()*+,-./0123456789:;<=>?@ABCXYZ[\\]^_`abcxyz{|}~é\x00\ufffd")
	for i := 0; i < 2000; i++ {
		tokens := make([]string, 1+r.Intn(4))
		for j := range tokens {
			tokens[j] = randomToken(r)
		}
		given := []string{randomToken(r), tokens[r.Intn(len(tokens))], ""}[r.Intn(3)]
		value := given
		if r.Intn(2) == 0 {
			value = url.QueryEscape(given)
		}
		var extra strings.Builder
		for k := r.Intn(30); k > 0; k-- {
			extra.WriteRune(noise[r.Intn(len(noise))])
		}
		for _, query := range []string{extra.String(), "helpdesk_token=" + value + "&" + extra.String()} {
			verification, err := VerifyDelivery(query, tokens)
			if err != nil {
				t.Fatal(err)
			}
			if !verification.Verified && verification.TokenIndex != -1 {
				t.Fatalf("not verified, yet index %d", verification.TokenIndex)
			}
		}
		alone, _ := VerifyDelivery("helpdesk_token="+value, tokens)
		accepted := false
		for _, token := range tokens {
			accepted = accepted || token == given
		}
		if alone.Verified != accepted || (alone.Verified && tokens[alone.TokenIndex] != given) {
			t.Fatalf("%q among %q: %+v", given, tokens, alone)
		}
	}
}

func TestVerifySaysWhichTokenMatchedAndTheEvent(t *testing.T) {
	a, b := strings.Repeat("a", 22), strings.Repeat("b", 30)
	query := "helpdesk_event=agent_invited&helpdesk_token=" + b
	if got, _ := VerifyDelivery(query, []string{a, b}); got != (Verification{true, 1, EventAgentInvited}) {
		t.Fatalf("%+v", got)
	}
	if got, _ := VerifyDelivery(query+"&helpdesk_token="+b, []string{b}); got.Verified {
		t.Fatal("a repeated token was accepted")
	}
	if got, _ := VerifyDelivery("helpdesk_event=ticket_reopened&helpdesk_token="+a, []string{a}); got != (Verification{true, 0, ""}) {
		t.Fatalf("%+v", got)
	}
}

func TestATokenRefusalNamesItsIndexNeverTheToken(t *testing.T) {
	valid := strings.Repeat("v", 22)
	for _, invalid := range []string{"SECRETshort", "SECRET" + strings.Repeat("x", 300), "SECRET" + strings.Repeat("y", 20) + "/", "SECRET" + strings.Repeat("z", 20) + "é"} {
		_, err := AcceptedTokens([]string{valid, invalid})
		_, handlerErr := NewHandler(Options{Tokens: []string{valid, invalid}, OnDelivery: func(context.Context, Delivery, DeliveryContext) error { return nil }})
		for _, err := range []error{err, handlerErr} {
			var config *ConfigError
			if !errors.As(err, &config) || config.Code != "invalid_tokens" {
				t.Fatalf("%v", err)
			}
			if !strings.HasPrefix(config.Message, "Tokens[1]: a delivery token must be ") || strings.Contains(config.Message, invalid) {
				t.Fatalf("%q", config.Message)
			}
		}
	}
	if _, err := AcceptedTokens(nil); err == nil || !strings.Contains(err.Error(), "needs at least one delivery token") {
		t.Fatalf("%v", err)
	}
	if _, err := NewHandler(Options{Tokens: []string{valid}}); err == nil || !strings.Contains(err.Error(), "OnDelivery must be set") {
		t.Fatalf("%v", err)
	}
	if _, err := NewHandler(Options{Tokens: []string{valid}, MaxBodyBytes: -1, OnDelivery: func(context.Context, Delivery, DeliveryContext) error { return nil }}); err == nil {
		t.Fatal("a negative cap was taken")
	}
}

func TestIsJSONContentType(t *testing.T) {
	text := func(s string) *string { return &s }
	for _, yes := range []*string{nil, text(""), text("application/json"), text(" Application/JSON ; charset=utf-8"), text("text/x+json")} {
		if !IsJSONContentType(yes) {
			t.Errorf("%v refused", yes)
		}
	}
	for _, no := range []string{"text/plain", "application/notjson", "+json", "/json", "application/+json", "a/b/c+json", ";"} {
		if IsJSONContentType(&no) {
			t.Errorf("%q taken", no)
		}
	}
}

// unreadable is a body that fails the test when read.
type unreadable struct{ t *testing.T }

func (u unreadable) Read([]byte) (int, error) {
	u.t.Error("the body was read")
	return 0, io.EOF
}

const ticketBody = `{"assigned_group":null,"assignee":"a@x","created_at":"t","number":7,"priority":null,"resolution_time":null,"title":null,"updated_at":"t","href":"h","closed_by":"a@x","links":{"assignee":{"href":"1"},"customer":{"href":"2"},"state":{"href":"3"},"messages":{"href":"4"}}}`

func newHandler(t *testing.T, options Options) http.Handler {
	t.Helper()
	if options.Tokens == nil {
		options.Tokens = []string{strings.Repeat("a", 22)}
	}
	handler, err := NewHandler(options)
	if err != nil {
		t.Fatal(err)
	}
	return handler
}

func TestAForgedPostIsRefusedUnread(t *testing.T) {
	handler := newHandler(t, Options{OnDelivery: func(context.Context, Delivery, DeliveryContext) error { t.Error("handled"); return nil }})
	recorder := httptest.NewRecorder()
	request := httptest.NewRequest(http.MethodPost, "/h?helpdesk_event=ticket_opened", unreadable{t})
	handler.ServeHTTP(recorder, request)
	if recorder.Code != 401 || !strings.Contains(recorder.Body.String(), `"error":"unauthorized"`) {
		t.Fatalf("%d %s", recorder.Code, recorder.Body)
	}
}

func TestAnOverCapBodyIsRefusedWhileItIsRead(t *testing.T) {
	server := httptest.NewServer(newHandler(t, Options{MaxBodyBytes: 10000, OnDelivery: func(context.Context, Delivery, DeliveryContext) error { t.Error("handled"); return nil }}))
	defer server.Close()
	reader, writer := io.Pipe()
	sent := make(chan int, 1)
	go func() {
		total := 0
		chunk := []byte(strings.Repeat(" ", 4096))
		for total < 64*4096 {
			if _, err := writer.Write(chunk); err != nil {
				break
			}
			total += len(chunk)
			time.Sleep(2 * time.Millisecond)
		}
		sent <- total
	}()
	// No Content-Length: chunked, and never ended before the answer.
	response, err := http.Post(server.URL+"/h?helpdesk_event=ticket_opened&helpdesk_token="+strings.Repeat("a", 22), "application/json", reader)
	if err != nil {
		t.Fatal(err)
	}
	response.Body.Close()
	writer.CloseWithError(errors.New("answered"))
	if response.StatusCode != 413 {
		t.Fatalf("status %d", response.StatusCode)
	}
	if total := <-sent; total >= 64*4096 {
		t.Fatalf("the whole body (%d bytes) was sent before the answer", total)
	}
}

func TestAFailingHandlerIsA500WithNoDetail(t *testing.T) {
	for _, fail := range []func() error{
		func() error { return errors.New("the database is down") },
		func() error { panic("the database is down") },
	} {
		var reported []string
		handler := newHandler(t, Options{
			OnDelivery: func(context.Context, Delivery, DeliveryContext) error { return fail() },
			OnError:    func(err error, event Event) { reported = append(reported, string(event)+": "+err.Error()) },
		})
		recorder := httptest.NewRecorder()
		handler.ServeHTTP(recorder, httptest.NewRequest(http.MethodPost, "/h?helpdesk_event=ticket_opened&helpdesk_token="+strings.Repeat("a", 22), strings.NewReader(ticketBody)))
		var shown map[string]string
		if err := json.Unmarshal(recorder.Body.Bytes(), &shown); err != nil {
			t.Fatal(err)
		}
		if recorder.Code != 500 || shown["error"] != "handler_failed" || shown["message"] != "the receiver failed to handle the delivery" {
			t.Fatalf("%d %v", recorder.Code, shown)
		}
		if len(reported) != 1 || !strings.HasPrefix(reported[0], "ticket_opened: ") || !strings.Contains(reported[0], "the database is down") {
			t.Fatalf("%q", reported)
		}
	}
}

func TestRouterCallsHandlersInOrder(t *testing.T) {
	var seen []string
	router := (&Router{}).
		On(func(_ context.Context, d Delivery, _ DeliveryContext) error { seen = append(seen, "first"); return nil }, EventTicketOpened).
		On(func(_ context.Context, d Delivery, info DeliveryContext) error {
			seen = append(seen, string(d.Event))
			return errors.New("second fails")
		}, EventTicketOpened, EventTicketClosed).
		On(func(context.Context, Delivery, DeliveryContext) error { seen = append(seen, "third"); return nil }, EventTicketOpened)
	handler := newHandler(t, Options{OnDelivery: router.Dispatch, OnError: func(error, Event) {}})
	recorder := httptest.NewRecorder()
	handler.ServeHTTP(recorder, httptest.NewRequest(http.MethodPost, "/h?helpdesk_event=ticket_opened&helpdesk_token="+strings.Repeat("a", 22), strings.NewReader(ticketBody)))
	if recorder.Code != 500 || strings.Join(seen, ",") != "first,ticket_opened" {
		t.Fatalf("%d %v", recorder.Code, seen)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("an unknown event was taken")
		}
	}()
	router.On(func(context.Context, Delivery, DeliveryContext) error { return nil }, Event("ticket_reopened"))
}

func TestNullableChecks(t *testing.T) {
	number := json.Number("3")
	if value, problem := nullableString(nil, "f"); value != nil || problem != nil {
		t.Fatal("null string")
	}
	if _, problem := nullableString(number, "f"); problem == nil || problem.Message != "expected string or null, got number" {
		t.Fatalf("%v", problem)
	}
	if value, problem := nullableBool(true, "f"); problem != nil || !*value {
		t.Fatal("bool")
	}
	if _, problem := nullableBool("true", "f"); problem == nil {
		t.Fatal("a string taken for a bool")
	}
	integer := nullableInteger(-10, 10)
	if value, problem := integer(json.Number("1e1"), "f"); problem != nil || *value != 10 {
		t.Fatal("1e1")
	}
	if _, problem := integer(json.Number("11"), "f"); problem == nil {
		t.Fatal("out of bounds taken")
	}
	if value, problem := integer(nil, "f"); value != nil || problem != nil {
		t.Fatal("null integer")
	}
	if _, problem := integer("1", "f"); problem == nil || problem.Message != "expected integer or null, got string" {
		t.Fatalf("%v", problem)
	}
	if value, problem := nullableMap(nil, "f"); value != nil || problem != nil {
		t.Fatal("null map")
	}
	if _, problem := nullableMap([]any{}, "f"); problem == nil {
		t.Fatal("an array taken for a map")
	}
	link := nullableObject(linkFrom)
	if value, problem := link(nil, "f"); value != nil || problem != nil {
		t.Fatal("null object")
	}
	if value, problem := link(map[string]any{"href": "x", "rel": "y"}, "f"); problem != nil || value.Href != "x" || value.Extra["rel"] != "y" {
		t.Fatalf("%v %v", value, problem)
	}
	if _, problem := link(map[string]any{}, "f"); problem == nil || problem.Field != "f.href" {
		t.Fatalf("%v", problem)
	}
}
