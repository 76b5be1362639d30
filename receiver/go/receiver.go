// Package receiver receives help-desk webhook deliveries in a Go service, with the standard library only.
//
// The help desk signs nothing (docs/helpdesk-api.md §5, §6). A webhook declared with a delivery token is registered
// at a url whose query carries the token and the event; this package accepts a POST only when that token is one it
// was given (compared in constant time with crypto/subtle, several at once during a rotation), then hands over the
// body as the typed record of its event (records_gen.go, generated from the TypeScript kit's schemas).
//
//	handler, err := receiver.NewHandler(receiver.Options{
//		Tokens: []string{os.Getenv("DELIVERY_TOKEN")},
//		OnDelivery: func(ctx context.Context, d receiver.Delivery, _ receiver.DeliveryContext) error {
//			if d.Ticket != nil {
//				log.Printf("ticket %d: %s", d.Ticket.Number, d.Event)
//			}
//			return nil
//		},
//	})
//	http.Handle("/hooks/helpdesk", handler)
//
// It answers as the other kits do (receiver/nodejs/refusals.ts, generated into contract_gen.go): method (405), token
// (401, before any of the body is read), size (413, from Content-Length or as soon as the body passes the cap while it
// is read), content (415), event and record (400), then OnDelivery (204, or 500 when it returns an error or panics).
// No answer and no log line holds anything of the url, whose query holds the token.
package receiver

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ConfigError is returned when a receiver is given tokens or options it cannot work with, when it is made (never
// while receiving). Code is "invalid_tokens" or "invalid_option"; the message names a token by its index only.
type ConfigError struct {
	Code    string
	Message string
}

// Error is the message: what is wrong and what is allowed, never a token.
func (e *ConfigError) Error() string { return e.Message }

// DeliveryTokenProblem says what is wrong with a delivery token, or "" when it is valid; the reason never contains
// the token. The rule is kernel/delivery-token.ts deliveryTokenProblem's (MinTokenLength to MaxTokenLength characters
// of TokenCharacters, generated from it).
func DeliveryTokenProblem(token string) string {
	if len(token) < MinTokenLength || len(token) > MaxTokenLength {
		// Bytes, not runes: a token of TokenCharacters is ASCII, and a longer text of other runes is refused below.
		return "a delivery token must be " + DeliveryTokenRule + "; got " + strconv.Itoa(utf8.RuneCountInString(token)) + " characters"
	}
	for i := 0; i < len(token); i++ {
		if strings.IndexByte(TokenCharacters, token[i]) == -1 {
			return "a delivery token must be " + DeliveryTokenRule + "; got another character (not shown)"
		}
	}
	return ""
}

// AcceptedTokens checks the tokens a receiver accepts and returns a copy, in the order given.
func AcceptedTokens(tokens []string) ([]string, error) {
	if len(tokens) == 0 {
		return nil, &ConfigError{"invalid_tokens", "a receiver needs at least one delivery token to accept (" + DeliveryTokenRule + "): Tokens is empty"}
	}
	for index, token := range tokens {
		if problem := DeliveryTokenProblem(token); problem != "" {
			return nil, &ConfigError{"invalid_tokens", "Tokens[" + strconv.Itoa(index) + "]: " + problem}
		}
	}
	return append([]string(nil), tokens...), nil
}

// decodeQueryComponent reads a query's name or value as a browser's URLSearchParams does: "+" is a space, a
// percent-escape is a byte, a bad escape stays as written, and the bytes are UTF-8 (a bad sequence becomes U+FFFD).
func decodeQueryComponent(text string) string {
	var decoded []byte
	for i := 0; i < len(text); i++ {
		switch {
		case text[i] == '+':
			decoded = append(decoded, ' ')
		case text[i] == '%' && i+2 < len(text) && isHex(text[i+1]) && isHex(text[i+2]):
			value, _ := strconv.ParseUint(text[i+1:i+3], 16, 8)
			decoded = append(decoded, byte(value))
			i += 2
		default:
			decoded = append(decoded, text[i])
		}
	}
	return strings.ToValidUTF8(string(decoded), "\uFFFD")
}

func isHex(c byte) bool {
	return ('0' <= c && c <= '9') || ('a' <= c && c <= 'f') || ('A' <= c && c <= 'F')
}

// queryValues are the values of a query parameter, read as URLSearchParams reads them ("&" separates pairs).
func queryValues(rawQuery, name string) []string {
	var values []string
	for _, pair := range strings.Split(rawQuery, "&") {
		if pair == "" {
			continue
		}
		key, value, _ := strings.Cut(pair, "=")
		if decodeQueryComponent(key) == name {
			values = append(values, decodeQueryComponent(value))
		}
	}
	return values
}

// matchToken is the index of the first accepted token equal to given, or -1, in time that does not depend on where
// given differs: every accepted token is compared, each with subtle.ConstantTimeCompare.
func matchToken(given *string, tokens []string) int {
	found := -1
	offered := []byte{}
	if given != nil {
		offered = []byte(*given)
	}
	for index, token := range tokens {
		equal := subtle.ConstantTimeCompare(offered, []byte(token)) == 1
		if equal && given != nil && found == -1 {
			found = index
		}
	}
	return found
}

// Verification is what VerifyDelivery found: Verified; TokenIndex, the accepted token's index (-1 when not
// verified); Event, the url's event when it names one known event once (else "").
type Verification struct {
	Verified   bool
	TokenIndex int
	Event      Event
}

func verifyWith(rawQuery string, tokens []string) Verification {
	given := queryValues(rawQuery, DeliveryTokenParam)
	var offered *string
	if len(given) == 1 {
		offered = &given[0]
	}
	index := matchToken(offered, tokens)
	if index == -1 {
		return Verification{TokenIndex: -1}
	}
	verification := Verification{Verified: true, TokenIndex: index}
	if events := queryValues(rawQuery, DeliveryEventParam); len(events) == 1 {
		if _, known := EventRecord[Event(events[0])]; known {
			verification.Event = Event(events[0])
		}
	}
	return verification
}

// VerifyDelivery verifies a delivery by its url's query (r.URL.RawQuery): exactly one helpdesk_token parameter,
// equal to one of the accepted tokens, compared in constant time. It returns an error for the tokens only.
func VerifyDelivery(rawQuery string, tokens []string) (Verification, error) {
	checked, err := AcceptedTokens(tokens)
	if err != nil {
		return Verification{TokenIndex: -1}, err
	}
	return verifyWith(rawQuery, checked), nil
}

// DeliveryParseError is returned by ParseDelivery when the event is unknown or the body breaks its event's record:
// Field is the dotted path of the first failing field ("" for the body itself or an unknown event).
type DeliveryParseError struct {
	Event   string
	Field   string
	Message string
}

// Error is the message, naming the event, the record and the first failing field.
func (e *DeliveryParseError) Error() string { return e.Message }

// ParseDelivery checks a decoded JSON body (encoding/json with UseNumber: see DecodeBody) against the record its
// event carries (EventRecord) and builds it.
func ParseDelivery(event string, body any) (Delivery, error) {
	kind, known := EventRecord[Event(event)]
	if !known {
		return Delivery{}, &DeliveryParseError{Event: event, Message: "unknown webhook event " + strconv.Quote(event) + " (docs/helpdesk-api.md §6 lists 14 names)"}
	}
	delivery := Delivery{Event: Event(event), Kind: kind}
	if problem := record(kind, body, &delivery); problem != nil {
		where := "the body"
		if problem.Field != "" {
			where = "field " + strconv.Quote(problem.Field)
		}
		name := strings.ToUpper(string(kind[:1])) + string(kind[1:])
		return Delivery{}, &DeliveryParseError{Event: event, Field: problem.Field, Message: event + " delivery is not a valid " + name + ": " + where + ": " + problem.Message}
	}
	return delivery, nil
}

// errNotJSON is a body that is not one JSON value in UTF-8 nested at most MaxJSONDepth deep.
var errNotJSON = errors.New("not JSON")

// DecodeBody decodes a body as a delivery's JSON: UTF-8 (RFC 8259 §8.1), one value, numbers as json.Number (so that
// an integer is read as JavaScript reads it), nested at most MaxJSONDepth deep.
func DecodeBody(body []byte) (any, error) {
	if !utf8.Valid(body) {
		return nil, errNotJSON
	}
	decoder := json.NewDecoder(bytes.NewReader(body))
	decoder.UseNumber()
	var value any
	if err := decoder.Decode(&value); err != nil {
		return nil, errNotJSON
	}
	if _, err := decoder.Token(); err != io.EOF {
		return nil, errNotJSON
	}
	if nestsTooDeep(value) {
		return nil, errNotJSON
	}
	return value, nil
}

// nestsTooDeep says whether a decoded value nests deeper than MaxJSONDepth (walked without recursion).
func nestsTooDeep(value any) bool {
	type item struct {
		value any
		depth int
	}
	stack := []item{{value, 1}}
	for len(stack) > 0 {
		next := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		var children []any
		switch container := next.value.(type) {
		case []any:
			children = container
		case map[string]any:
			for _, child := range container {
				children = append(children, child)
			}
		default:
			continue
		}
		if next.depth > MaxJSONDepth {
			return true
		}
		for _, child := range children {
			switch child.(type) {
			case []any, map[string]any:
				stack = append(stack, item{child, next.depth + 1})
			}
		}
	}
	return false
}

// IsJSONContentType says whether a Content-Type names JSON: absent (nil) or empty, application/json, or a +json media
// type (RFC 6839 §3.1); parameters are ignored. As receiver/nodejs/refusals.ts isJsonContentType.
func IsJSONContentType(contentType *string) bool {
	if contentType == nil {
		return true
	}
	mediaType, _, parameters := strings.Cut(*contentType, ";")
	mediaType = strings.ToLower(strings.Trim(mediaType, " \t"))
	if mediaType == "" && !parameters {
		return true
	}
	kind, subtype, found := strings.Cut(mediaType, "/")
	if !found || kind == "" || strings.Contains(subtype, "/") || strings.ContainsAny(mediaType, " \t") {
		return false
	}
	return (kind == "application" && subtype == "json") || (len(subtype) > 5 && strings.HasSuffix(subtype, "+json"))
}

// Refusal is a refused delivery: its status and its JSON body (Body).
type Refusal struct {
	Status  int
	Code    RefusalCode
	Message string
	// Field is the first failing field's dotted path, for RefusalInvalidRecord only.
	Field *string
}

// Body is the refusal's JSON body: {"error", "message"}, and "field" for RefusalInvalidRecord.
func (r Refusal) Body() []byte {
	shown := struct {
		Error   RefusalCode `json:"error"`
		Message string      `json:"message"`
		Field   *string     `json:"field,omitempty"`
	}{r.Code, r.Message, r.Field}
	var out bytes.Buffer
	encoder := json.NewEncoder(&out)
	encoder.SetEscapeHTML(false)
	_ = encoder.Encode(shown)
	return bytes.TrimSuffix(out.Bytes(), []byte("\n"))
}

func refused(code RefusalCode) *Refusal {
	entry := refusalTable[code]
	return &Refusal{Status: entry.status, Code: code, Message: entry.message}
}

// Reception is what ReceiveDelivery makes of a request: Refusal, or Delivery with Status AcceptedStatus.
type Reception struct {
	Status     int
	Delivery   *Delivery
	TokenIndex int
	Refusal    *Refusal
}

// Request is a delivery request as ReceiveDelivery reads it: whole.
type Request struct {
	Method   string
	RawQuery string
	// ContentType is the Content-Type header's value, nil when absent.
	ContentType *string
	Body        []byte
}

type admitted struct {
	tokenIndex int
	event      Event
}

// admit makes the checks that need no body: the method (405) and the token (401).
func admit(method, rawQuery string, tokens []string) (admitted, *Refusal) {
	if method != http.MethodPost {
		return admitted{}, refused(RefusalMethodNotAllowed)
	}
	verification := verifyWith(rawQuery, tokens)
	if !verification.Verified {
		return admitted{}, refused(RefusalUnauthorized)
	}
	return admitted{verification.TokenIndex, verification.Event}, nil
}

// parseBody makes the checks on the whole body: the content (415), the event (400) and the record (400).
func parseBody(in admitted, contentType *string, body []byte) Reception {
	if !IsJSONContentType(contentType) {
		return Reception{Status: refusalTable[RefusalNotJSON].status, Refusal: refused(RefusalNotJSON)}
	}
	value, err := DecodeBody(body)
	if err != nil {
		return Reception{Status: refusalTable[RefusalNotJSON].status, Refusal: refused(RefusalNotJSON)}
	}
	if in.event == "" {
		return Reception{Status: refusalTable[RefusalUnknownEvent].status, Refusal: refused(RefusalUnknownEvent)}
	}
	delivery, err := ParseDelivery(string(in.event), value)
	if err != nil {
		var problem *DeliveryParseError
		errors.As(err, &problem)
		refusal := &Refusal{Status: refusalTable[RefusalInvalidRecord].status, Code: RefusalInvalidRecord, Message: problem.Message, Field: &problem.Field}
		return Reception{Status: refusal.Status, Refusal: refusal}
	}
	return Reception{Status: AcceptedStatus, Delivery: &delivery, TokenIndex: in.tokenIndex}
}

func checkedCap(maxBodyBytes int64) (int64, error) {
	switch {
	case maxBodyBytes == 0:
		return DefaultMaxBodyBytes, nil
	case maxBodyBytes < 0:
		return 0, &ConfigError{"invalid_option", fmt.Sprintf("MaxBodyBytes must be a positive number of bytes (0: the default, %d); got %d", DefaultMaxBodyBytes, maxBodyBytes)}
	}
	return maxBodyBytes, nil
}

// ReceiveDelivery receives one delivery whose body is already read. Checks, in this order: method (405), token
// (401), size (413), content (415), event (400 unknown_event), record (400 invalid_record, naming the field). It
// returns an error only for the tokens or the cap (maxBodyBytes 0: DefaultMaxBodyBytes).
func ReceiveDelivery(request Request, tokens []string, maxBodyBytes int64) (Reception, error) {
	checked, err := AcceptedTokens(tokens)
	if err != nil {
		return Reception{}, err
	}
	limit, err := checkedCap(maxBodyBytes)
	if err != nil {
		return Reception{}, err
	}
	in, refusal := admit(request.Method, request.RawQuery, checked)
	if refusal != nil {
		return Reception{Status: refusal.Status, Refusal: refusal}, nil
	}
	if int64(len(request.Body)) > limit {
		return Reception{Status: refusalTable[RefusalTooLarge].status, Refusal: refused(RefusalTooLarge)}, nil
	}
	return parseBody(in, request.ContentType, request.Body), nil
}

// DeliveryContext is what a handler knows of an accepted delivery beside it: TokenIndex, which accepted token its
// url carried (during a rotation, which webhook sent it).
type DeliveryContext struct {
	TokenIndex int
}

// Options are a handler's: the accepted tokens (the webhook's, or several during a rotation), OnDelivery (an error
// or a panic answers 500, with no detail), MaxBodyBytes (0: DefaultMaxBodyBytes, 1 MiB) and OnError (told why a
// delivery is answered 500; default: one line through the standard logger, with the event and the error).
type Options struct {
	Tokens       []string
	OnDelivery   func(ctx context.Context, delivery Delivery, info DeliveryContext) error
	MaxBodyBytes int64
	OnError      func(err error, event Event)
}

type handler struct {
	tokens     []string
	limit      int64
	onDelivery func(context.Context, Delivery, DeliveryContext) error
	onError    func(error, Event)
}

// NewHandler makes a net/http handler that receives deliveries. It returns a *ConfigError when a token or an option
// is not valid (a token is named by its index only).
func NewHandler(options Options) (http.Handler, error) {
	tokens, err := AcceptedTokens(options.Tokens)
	if err != nil {
		return nil, err
	}
	limit, err := checkedCap(options.MaxBodyBytes)
	if err != nil {
		return nil, err
	}
	if options.OnDelivery == nil {
		return nil, &ConfigError{"invalid_option", "OnDelivery must be set: func(ctx, delivery, info) error"}
	}
	onError := options.OnError
	if onError == nil {
		onError = func(err error, event Event) {
			what := "a delivery"
			if event != "" {
				what = "a " + string(event) + " delivery"
			}
			log.Printf("%s was answered 500: %v", what, err)
		}
	}
	return &handler{tokens, limit, options.OnDelivery, onError}, nil
}

func answer(w http.ResponseWriter, refusal *Refusal) {
	if refusal == nil {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	body := refusal.Body()
	header := w.Header()
	header.Set("Content-Type", "application/json")
	header.Set("Content-Length", strconv.Itoa(len(body)))
	header.Set("Cache-Control", "no-store")
	if refusal.Code == RefusalMethodNotAllowed {
		header.Set("Allow", http.MethodPost)
	}
	w.WriteHeader(refusal.Status)
	_, _ = w.Write(body)
}

func (h *handler) report(err error, event Event) {
	defer func() { _ = recover() }() // a failing reporter changes nothing of the answer
	h.onError(err, event)
}

func (h *handler) deliver(ctx context.Context, delivery Delivery, info DeliveryContext) (err error) {
	defer func() {
		if panicked := recover(); panicked != nil {
			err = fmt.Errorf("OnDelivery panicked: %v", panicked)
		}
	}()
	return h.onDelivery(ctx, delivery, info)
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	in, refusal := admit(r.Method, r.URL.RawQuery, h.tokens)
	if refusal != nil {
		answer(w, refusal)
		return
	}
	if r.ContentLength > h.limit {
		answer(w, refused(RefusalTooLarge))
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.limit))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			answer(w, refused(RefusalTooLarge))
			return
		}
		h.report(errors.New("the request broke off while its body was read"), in.event)
		answer(w, refused(RefusalHandlerFailed))
		return
	}
	var contentType *string
	if values := r.Header.Values("Content-Type"); len(values) > 0 {
		contentType = &values[0]
	}
	reception := parseBody(in, contentType, body)
	if reception.Refusal != nil {
		answer(w, reception.Refusal)
		return
	}
	if err := h.deliver(r.Context(), *reception.Delivery, DeliveryContext{reception.TokenIndex}); err != nil {
		h.report(err, in.event)
		answer(w, refused(RefusalHandlerFailed))
		return
	}
	answer(w, nil)
}

// Router routes each delivery to the handlers of its event, in the order they were added (as @octokit/webhooks'
// on("issues.opened")). A handler's error stops the delivery's dispatch and answers 500; a delivery of an event with
// no handler is accepted and handled by nothing. Its Dispatch is an OnDelivery.
type Router struct {
	handlers map[Event][]func(context.Context, Delivery, DeliveryContext) error
}

// On adds a handler of one event or several. It panics on a name that is not an event (a mistake in the program, as
// http.ServeMux panics on a bad pattern).
func (r *Router) On(handler func(context.Context, Delivery, DeliveryContext) error, events ...Event) *Router {
	if len(events) == 0 {
		panic("receiver: Router.On: name at least one event")
	}
	for _, event := range events {
		if _, known := EventRecord[event]; !known {
			panic("receiver: Router.On: " + strconv.Quote(string(event)) + " is not an event")
		}
	}
	if r.handlers == nil {
		r.handlers = map[Event][]func(context.Context, Delivery, DeliveryContext) error{}
	}
	for _, event := range events {
		r.handlers[event] = append(r.handlers[event], handler)
	}
	return r
}

// Dispatch calls the handlers of the delivery's event in turn, stopping at the first error.
func (r *Router) Dispatch(ctx context.Context, delivery Delivery, info DeliveryContext) error {
	for _, handler := range r.handlers[delivery.Event] {
		if err := handler(ctx, delivery, info); err != nil {
			return err
		}
	}
	return nil
}
