package jsonvalue

import "reflect"

// KindOf names, for a person, the JSON value a Go type is decoded from ("an
// array", "a string", …), so that a decode error can say what a field
// wants without naming a Go type.
func KindOf(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Pointer:
		return KindOf(t.Elem())
	case reflect.Interface:
		return "a JSON value"
	}
	return "a number"
}
