package receiver

// The shared cases (receiver/cases.json) against ReceiveDelivery, in-process: the statuses, error codes, fields and
// typed deliveries every kit gives (tests/receiver/kits.test.ts sends the same cases over HTTP).

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

type sharedCase struct {
	Name        string          `json:"name"`
	Method      string          `json:"method"`
	Query       string          `json:"query"`
	ContentType *string         `json:"contentType"`
	Body        json.RawMessage `json:"body"`
	BodyText    *string         `json:"bodyText"`
	BodyBase64  *string         `json:"bodyBase64"`
	Repeat      []struct {
		Text  string `json:"text"`
		Count int    `json:"count"`
	} `json:"repeat"`
	Nest *struct {
		Key   string `json:"key"`
		Depth int    `json:"depth"`
	} `json:"nest"`
	PadTo  *int `json:"padTo"`
	Expect struct {
		Status    int            `json:"status"`
		Error     string         `json:"error"`
		Field     *string        `json:"field"`
		Delivered map[string]any `json:"delivered"`
	} `json:"expect"`
}

type casesFile struct {
	Tokens   map[string]string `json:"tokens"`
	Accepted []string          `json:"accepted"`
	Cases    []sharedCase      `json:"cases"`
}

func readCases(t *testing.T) casesFile {
	t.Helper()
	text, err := os.ReadFile(filepath.Join("..", "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var file casesFile
	if err := json.Unmarshal(text, &file); err != nil {
		t.Fatal(err)
	}
	if len(file.Cases) < 40 {
		t.Fatalf("only %d cases read", len(file.Cases))
	}
	return file
}

func (file casesFile) acceptedTokens() []string {
	var tokens []string
	for _, name := range file.Accepted {
		tokens = append(tokens, file.Tokens[name])
	}
	return tokens
}

func (file casesFile) queryOf(c sharedCase) string {
	query := c.Query
	for name, token := range file.Tokens {
		query = strings.ReplaceAll(query, "{"+name+"}", token)
	}
	return query
}

// bodyOf builds a case's body as receiver/cases.json's $comment says.
func bodyOf(t *testing.T, c sharedCase) []byte {
	t.Helper()
	var text string
	switch {
	case c.BodyBase64 != nil:
		data, err := base64.StdEncoding.DecodeString(*c.BodyBase64)
		if err != nil {
			t.Fatal(err)
		}
		return data
	case c.Repeat != nil:
		for _, part := range c.Repeat {
			text += strings.Repeat(part.Text, part.Count)
		}
	case c.BodyText != nil:
		text = *c.BodyText
	case c.Body != nil:
		var value any
		if err := json.Unmarshal(c.Body, &value); err != nil {
			t.Fatal(err)
		}
		encoded, err := json.Marshal(value)
		if err != nil {
			t.Fatal(err)
		}
		text = string(encoded)
		if c.Nest != nil {
			key, _ := json.Marshal(c.Nest.Key)
			text = text[:len(text)-1] + "," + string(key) + ":" + strings.Repeat("[", c.Nest.Depth) + strings.Repeat("]", c.Nest.Depth) + "}"
		}
	}
	if c.PadTo != nil {
		text += strings.Repeat(" ", *c.PadTo-len(text))
	}
	return []byte(text)
}

func sortedKeys(extra map[string]any) []any {
	names := []string{}
	for name := range extra {
		names = append(names, name)
	}
	sort.Strings(names)
	shown := []any{}
	for _, name := range names {
		shown = append(shown, name)
	}
	return shown
}

// summarize reports a delivery as receiver/cases.json's $comment says, through the typed records, as JSON reads it.
func summarize(t *testing.T, d Delivery, tokenIndex int) (map[string]any, map[string]any) {
	t.Helper()
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
	default:
		t.Fatal("a delivery with no record")
	}
	fields["extra"] = sortedKeys(extra)
	encoded, err := json.Marshal(map[string]any{"event": d.Event, "kind": d.Kind, "tokenIndex": tokenIndex, "fields": fields})
	if err != nil {
		t.Fatal(err)
	}
	var shown map[string]any
	if err := json.Unmarshal(encoded, &shown); err != nil {
		t.Fatal(err)
	}
	return shown, extra
}

func TestSharedCases(t *testing.T) {
	file := readCases(t)
	for _, c := range file.Cases {
		t.Run(c.Name, func(t *testing.T) {
			reception, err := ReceiveDelivery(Request{Method: c.Method, RawQuery: file.queryOf(c), ContentType: c.ContentType, Body: bodyOf(t, c)}, file.acceptedTokens(), 0)
			if err != nil {
				t.Fatal(err)
			}
			if reception.Delivery != nil {
				shown, extra := summarize(t, *reception.Delivery, reception.TokenIndex)
				if _, fails := extra["fail_the_handler"]; fails {
					if c.Expect.Status != 500 {
						t.Fatalf("a failing handler's case expects %d", c.Expect.Status)
					}
					return
				}
				if reception.Status != c.Expect.Status || !reflect.DeepEqual(shown, c.Expect.Delivered) {
					t.Fatalf("got %d %v, want %d %v", reception.Status, shown, c.Expect.Status, c.Expect.Delivered)
				}
				return
			}
			refusal := reception.Refusal
			if refusal.Status != c.Expect.Status || string(refusal.Code) != c.Expect.Error || !reflect.DeepEqual(refusal.Field, c.Expect.Field) {
				t.Fatalf("got %d %s %v, want %d %s %v", refusal.Status, refusal.Code, refusal.Field, c.Expect.Status, c.Expect.Error, c.Expect.Field)
			}
			for _, token := range file.Tokens {
				if strings.Contains(string(refusal.Body()), token) {
					t.Fatal("the refusal shows a token")
				}
			}
		})
	}
}
