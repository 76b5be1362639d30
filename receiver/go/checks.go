package receiver

// The checks the generated record builders (records_gen.go) are made of. Each follows what the TypeScript kit's
// schemas (zod 4, kernel/record-schemas.ts) accept, so that the three kits accept the same bodies: a string is a JSON
// string; a boolean a JSON boolean; an integer a JSON number with no fraction within the bounds the schema gives, read
// as JavaScript reads it (a double: 1.0, 1e2 and 1e-400 are integers, 1e400 is not); a map any JSON object; an object
// a JSON object with its listed keys present (others are kept in Extra). A failure names the dotted path of the field,
// as zod does ("links.state.href"; "" for the body itself). Values come from encoding/json with UseNumber.

import (
	"encoding/json"
	"math"
	"strconv"
)

// FieldError is a field that breaks its record's schema: Field is its dotted path ("" for the body itself).
type FieldError struct {
	Field   string
	Message string
}

// jsonType names the JSON type of a decoded value, as a message does.
func jsonType(value any) string {
	switch value.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number, float64:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "value"
}

// at is the dotted path of key inside the object at path.
func at(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func expected(what string, value any, path string, nullable bool) *FieldError {
	if nullable {
		what += " or null"
	}
	return &FieldError{Field: path, Message: "expected " + what + ", got " + jsonType(value)}
}

// expectObject is value as a JSON object.
func expectObject(value any, path string) (map[string]any, *FieldError) {
	object, ok := value.(map[string]any)
	if !ok {
		return nil, expected("object", value, path, false)
	}
	return object, nil
}

// field checks a key the record requires (present, with any value, null included) with check.
func field[T any](object map[string]any, key, path string, check func(any, string) (T, *FieldError)) (T, *FieldError) {
	value, ok := object[key]
	if !ok {
		var zero T
		return zero, &FieldError{Field: at(path, key), Message: "missing"}
	}
	return check(value, at(path, key))
}

// anyValue takes any JSON value (a field the help desk shows only as null).
func anyValue(value any, _ string) (any, *FieldError) {
	return value, nil
}

func expectString(value any, path string) (string, *FieldError) {
	text, ok := value.(string)
	if !ok {
		return "", expected("string", value, path, false)
	}
	return text, nil
}

func nullableString(value any, path string) (*string, *FieldError) {
	if value == nil {
		return nil, nil
	}
	text, ok := value.(string)
	if !ok {
		return nil, expected("string", value, path, true)
	}
	return &text, nil
}

func expectBool(value any, path string) (bool, *FieldError) {
	flag, ok := value.(bool)
	if !ok {
		return false, expected("boolean", value, path, false)
	}
	return flag, nil
}

func nullableBool(value any, path string) (*bool, *FieldError) {
	if value == nil {
		return nil, nil
	}
	flag, ok := value.(bool)
	if !ok {
		return nil, expected("boolean", value, path, true)
	}
	return &flag, nil
}

// expectInteger checks a JSON number with no fraction within [minimum, maximum], read as a double as JavaScript
// reads it (strconv.ParseFloat: an overflow is infinite, an underflow 0).
func expectInteger(minimum, maximum float64) func(any, string) (int64, *FieldError) {
	return func(value any, path string) (int64, *FieldError) {
		number, ok := value.(json.Number)
		if !ok {
			return 0, expected("integer", value, path, false)
		}
		double, _ := strconv.ParseFloat(string(number), 64)
		if math.IsInf(double, 0) || double != math.Trunc(double) {
			return 0, &FieldError{Field: path, Message: "expected integer, got a number with a fraction or out of range"}
		}
		if double < minimum || double > maximum {
			return 0, &FieldError{Field: path, Message: "expected integer from " + strconv.FormatFloat(minimum, 'f', -1, 64) + " to " + strconv.FormatFloat(maximum, 'f', -1, 64)}
		}
		return int64(double), nil
	}
}

func nullableInteger(minimum, maximum float64) func(any, string) (*int64, *FieldError) {
	check := expectInteger(minimum, maximum)
	return func(value any, path string) (*int64, *FieldError) {
		if value == nil {
			return nil, nil
		}
		if _, ok := value.(json.Number); !ok {
			return nil, expected("integer", value, path, true)
		}
		integer, problem := check(value, path)
		if problem != nil {
			return nil, problem
		}
		return &integer, nil
	}
}

func expectMap(value any, path string) (map[string]any, *FieldError) {
	object, ok := value.(map[string]any)
	if !ok {
		return nil, expected("object", value, path, false)
	}
	return object, nil
}

func nullableMap(value any, path string) (map[string]any, *FieldError) {
	if value == nil {
		return nil, nil
	}
	object, ok := value.(map[string]any)
	if !ok {
		return nil, expected("object", value, path, true)
	}
	return object, nil
}

// nullableObject checks a nested record object that may be null.
func nullableObject[T any](build func(any, string) (T, *FieldError)) func(any, string) (*T, *FieldError) {
	return func(value any, path string) (*T, *FieldError) {
		if value == nil {
			return nil, nil
		}
		built, problem := build(value, path)
		if problem != nil {
			return nil, problem
		}
		return &built, nil
	}
}

// extraFields are the fields of object the schema does not list.
func extraFields(object map[string]any, keys []string) map[string]any {
	extra := map[string]any{}
	for key, value := range object {
		listed := false
		for _, known := range keys {
			if key == known {
				listed = true
				break
			}
		}
		if !listed {
			extra[key] = value
		}
	}
	return extra
}
