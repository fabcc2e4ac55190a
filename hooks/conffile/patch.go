package conffile

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/tailscale/hujson"
)

// Patch returns before, a JSON or JSONC document (comments and trailing
// commas allowed: github.com/tailscale/hujson's syntax tree, which packs
// back byte for byte), edited in place so that it says what want says.
// Only what differs is touched: a member or element planq adds takes the
// indentation and layout of its neighbours (one line or many), one it
// removes takes its own whitespace and comments with it, a trailing comma
// stays where the file had one and is never added where it had none, and
// every other byte (comments, key order, indentation, the final newline)
// is kept. Adding something and removing it again gives back the same
// bytes. A key written twice in one object is an error (which one would a
// host read?).
func Patch(before []byte, want *Object) ([]byte, error) {
	v, err := hujson.Parse(before)
	if err != nil {
		return nil, err
	}
	p := patcher{unit: detectIndent(before), nl: "\n"}
	if bytes.Contains(before, []byte("\r\n")) {
		p.nl = "\r\n" // a file of Windows line endings keeps them
	}
	if err := p.value(&v, want, ""); err != nil {
		return nil, err
	}
	out := v.Pack()
	got, err := Parse(out)
	if err != nil || !Same(got, want) {
		// Not reached: a bug in the patcher must not write a wrong file.
		return nil, fmt.Errorf("editing in place did not give the document planq meant to write (%v); nothing was written", err)
	}
	return out, nil
}

// patcher edits one document; unit is its indentation step, for a
// container planq opens where the file has none to copy, and nl its line
// ending.
type patcher struct{ unit, nl string }

// model decodes a syntax tree value into the Object model.
func model(v hujson.Value) (any, error) {
	c := v.Clone()
	c.Standardize()
	c.BeforeExtra, c.AfterExtra = nil, nil
	data := c.Pack()
	if len(data) > 0 && data[0] == '{' {
		return Parse(data)
	}
	var out any
	err := decodeInto(data, &out)
	return out, err
}

// value makes v say want; indent is the indentation of the line v starts
// on.
func (p patcher) value(v *hujson.Value, want any, indent string) error {
	cur, err := model(*v)
	if err != nil {
		return err
	}
	if Same(cur, want) {
		return nil
	}
	switch w := want.(type) {
	case *Object:
		if obj, ok := v.Value.(*hujson.Object); ok {
			return p.object(obj, w, indent)
		}
	case []any:
		if arr, ok := v.Value.(*hujson.Array); ok {
			return p.array(arr, w, indent)
		}
	}
	nv, err := p.format(want, indent, v, true)
	if err != nil {
		return err
	}
	v.Value = nv
	return nil
}

// items are the members or elements of one container, for removing and
// inserting them alike.
type items[T any] struct {
	list  *[]T
	after *hujson.Extra // the whitespace before the closing bracket
	// before is an item's whitespace before it, value its value (whose
	// AfterExtra, on the last item, marks a trailing comma).
	before func(*T) *hujson.Extra
	value  func(*T) *hujson.Value
}

func members(obj *hujson.Object) items[hujson.ObjectMember] {
	return items[hujson.ObjectMember]{&obj.Members, &obj.AfterExtra,
		func(m *hujson.ObjectMember) *hujson.Extra { return &m.Name.BeforeExtra },
		func(m *hujson.ObjectMember) *hujson.Value { return &m.Value }}
}

func elements(arr *hujson.Array) items[hujson.Value] {
	return items[hujson.Value]{&arr.Elements, &arr.AfterExtra,
		func(e *hujson.Value) *hujson.Extra { return &e.BeforeExtra },
		func(e *hujson.Value) *hujson.Value { return e }}
}

// object makes obj say want: members want lacks are removed, members both
// have are patched, members only want has are appended.
func (p patcher) object(obj *hujson.Object, want *Object, indent string) error {
	names := make([]string, len(obj.Members))
	for i, m := range obj.Members {
		lit, ok := m.Name.Value.(hujson.Literal)
		if !ok {
			return fmt.Errorf("an object key is not a string")
		}
		names[i] = lit.String()
		if slices.Contains(names[:i], names[i]) {
			return fmt.Errorf("the key %q is in one object twice; remove one by hand", names[i])
		}
	}
	its := members(obj)
	inner, multi := its.indent(indent, p.unit)
	for i := len(obj.Members) - 1; i >= 0; i-- {
		if _, ok := want.Get(names[i]); !ok {
			its.remove(i)
			names = slices.Delete(names, i, i+1)
		}
	}
	for i := range obj.Members {
		v, _ := want.Get(names[i])
		if err := p.value(&obj.Members[i].Value, v, inner); err != nil {
			return err
		}
	}
	for _, k := range want.Keys() {
		if slices.Contains(names, k) {
			continue
		}
		v, _ := want.Get(k)
		m := hujson.ObjectMember{Name: hujson.Value{Value: hujson.String(k)}, Value: hujson.Value{BeforeExtra: hujson.Extra(" ")}}
		if n := len(obj.Members); n > 0 && isSpace(obj.Members[n-1].Value.BeforeExtra) {
			m.Value.BeforeExtra = append(hujson.Extra(nil), obj.Members[n-1].Value.BeforeExtra...)
		}
		val, err := p.format(v, inner, its.near(len(obj.Members)), multi)
		if err != nil {
			return err
		}
		m.Value.Value = val
		its.insert(len(obj.Members), m, inner, indent, p.nl, multi)
	}
	return nil
}

// array makes arr say want, keeping each element want keeps (in order: a
// longest common subsequence), patching in place an element that changed
// into another, and removing or inserting the rest.
func (p patcher) array(arr *hujson.Array, want []any, indent string) error {
	cur := make([]any, len(arr.Elements))
	for i, e := range arr.Elements {
		m, err := model(e)
		if err != nil {
			return err
		}
		cur[i] = m
	}
	its := elements(arr)
	inner, multi := its.indent(indent, p.unit)
	at := 0 // where the next element of want goes in arr as it is now
	oi, wj := 0, 0
	for _, pair := range append(lcs(cur, want), [2]int{len(cur), len(want)}) {
		olds, news := pair[0]-oi, pair[1]-wj
		both := min(olds, news)
		for k := range both {
			if err := p.value(&arr.Elements[at], want[wj+k], inner); err != nil {
				return err
			}
			at++
		}
		for range olds - both {
			its.remove(at)
		}
		for k := both; k < news; k++ {
			val, err := p.format(want[wj+k], inner, its.near(at), multi)
			if err != nil {
				return err
			}
			its.insert(at, hujson.Value{Value: val}, inner, indent, p.nl, multi)
			at++
		}
		if pair[0] < len(cur) {
			at++
		}
		oi, wj = pair[0]+1, pair[1]+1
	}
	return nil
}

// indent is the indentation of the container's items (from the last one
// that starts a line, a comment before it included, else the container's
// own indentation and a unit) and whether they are laid out one per line
// (so is an empty container planq fills).
func (c items[T]) indent(indent, unit string) (string, bool) {
	list := *c.list
	for i := len(list) - 1; i >= 0; i-- {
		b := *c.before(&list[i])
		if j := bytes.LastIndexByte(b, '\n'); j >= 0 {
			tail := b[j+1:]
			return string(tail[:len(tail)-len(bytes.TrimLeft(tail, " \t"))]), true
		}
	}
	return indent + unit, len(list) == 0
}

// near is the item a new item at i is laid out like: the one before it,
// else the one after, else none.
func (c items[T]) near(i int) *hujson.Value {
	list := *c.list
	switch {
	case len(list) == 0:
		return nil
	case i > 0:
		return c.value(&list[i-1])
	}
	return c.value(&list[0])
}

// insert puts item at i, laid out like its neighbour (an empty container
// is opened: on lines of their own at inner and indent when multi, ended
// by nl), keeping the container's trailing comma or its absence.
func (c items[T]) insert(i int, item T, inner, indent, nl string, multi bool) {
	list := *c.list
	n := len(list)
	b := c.before(&item)
	switch {
	case n == 0:
		if multi {
			*b = hujson.Extra(nl + inner)
			if isSpace(*c.after) {
				*c.after = hujson.Extra(nl + indent)
			}
		}
	case i == n:
		*b = lineBreak(*c.before(&list[n-1]), inner, nl)
	default:
		next := c.before(&list[i])
		*b = lineBreak(*next, inner, nl)
		if i == 0 && !bytes.Contains(*next, []byte("\n")) && isSpace(*next) {
			*b, *next = append(hujson.Extra(nil), *next...), hujson.Extra(" ") // [x → [new, x
		}
	}
	trailing := n > 0 && c.value(&list[n-1]).AfterExtra != nil
	list = slices.Insert(list, i, item)
	if i == n && n > 0 {
		if trailing {
			c.value(&list[n]).AfterExtra = hujson.Extra{}
		} else if prev := c.value(&list[n-1]); prev.AfterExtra != nil && len(prev.AfterExtra) == 0 {
			prev.AfterExtra = nil
		}
	}
	*c.list = list
}

// remove takes item i out with the whitespace and comments before it,
// keeping the container's trailing comma or its absence. A container left
// empty closes up ({}), unless a comment stays in it.
func (c items[T]) remove(i int) {
	list := *c.list
	n := len(list)
	trailing := c.value(&list[n-1]).AfterExtra != nil
	gone := *c.before(&list[i])
	list = slices.Delete(list, i, i+1)
	*c.list = list
	if n--; n == 0 {
		if isSpace(*c.after) {
			*c.after = nil
		}
		return
	}
	if i == 0 { // [x, y → [y: y takes x's place on x's line
		if next := c.before(&list[0]); !bytes.Contains(*next, []byte("\n")) && isSpace(*next) && isSpace(gone) {
			*next = append(hujson.Extra(nil), gone...)
		}
	}
	if i == n { // the last one went: the one before is last now
		last := c.value(&list[n-1])
		switch {
		case trailing && last.AfterExtra == nil:
			last.AfterExtra = hujson.Extra{}
		case !trailing && last.AfterExtra != nil:
			*c.after = append(append(hujson.Extra(nil), last.AfterExtra...), *c.after...)
			last.AfterExtra = nil
		}
	}
}

// format writes v as a syntax tree laid out like the value like (nil:
// none): on one line where like is an object or list on one line, else on
// lines at indent when multi, and each part of v like the matching part of
// like.
func (p patcher) format(v any, indent string, like *hujson.Value, multi bool) (hujson.ValueTrimmed, error) {
	var b bytes.Buffer
	p.write(&b, v, indent, like, multi)
	nv, err := hujson.Parse(b.Bytes())
	if err != nil {
		return nil, err
	}
	return nv.Value, nil
}

// write writes v for format.
func (p patcher) write(b *bytes.Buffer, v any, indent string, like *hujson.Value, multi bool) {
	var likeObj *hujson.Object
	var likeArr *hujson.Array
	if like != nil {
		likeObj, _ = like.Value.(*hujson.Object)
		likeArr, _ = like.Value.(*hujson.Array)
	}
	switch t := v.(type) {
	case *Object:
		if likeObj != nil {
			multi = multi && spans(*like)
		}
		if !multi || len(t.keys) == 0 {
			writeLine(b, v)
			return
		}
		b.WriteString("{")
		for i, k := range t.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(p.nl + indent + p.unit)
			writeString(b, k)
			b.WriteString(": ")
			var child *hujson.Value
			if likeObj != nil && len(likeObj.Members) > 0 {
				child = &likeObj.Members[len(likeObj.Members)-1].Value
				for j := range likeObj.Members {
					if lit, ok := likeObj.Members[j].Name.Value.(hujson.Literal); ok && lit.String() == k {
						child = &likeObj.Members[j].Value
					}
				}
			}
			p.write(b, t.vals[k], indent+p.unit, child, true)
		}
		b.WriteString(p.nl + indent + "}")
	case []any:
		if likeArr != nil {
			multi = multi && spans(*like)
		}
		if !multi || len(t) == 0 {
			writeLine(b, v)
			return
		}
		b.WriteString("[")
		for i, e := range t {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(p.nl + indent + p.unit)
			var child *hujson.Value
			if likeArr != nil && len(likeArr.Elements) > 0 {
				child = &likeArr.Elements[len(likeArr.Elements)-1]
			}
			p.write(b, e, indent+p.unit, child, true)
		}
		b.WriteString(p.nl + indent + "]")
	default:
		writeLine(b, v)
	}
}

// lineBreak is the whitespace before a new item laid out like the item
// whose whitespace before is b: a line break (nl) and inner when b breaks
// the line, else b's spaces (no comment of the user's is copied).
func lineBreak(b hujson.Extra, inner, nl string) hujson.Extra {
	if bytes.Contains(b, []byte("\n")) {
		return hujson.Extra(nl + inner)
	}
	if len(b) > 0 && isSpace(b) {
		return append(hujson.Extra(nil), b...)
	}
	return hujson.Extra(" ")
}

// spans reports whether a value's text spans lines.
func spans(v hujson.Value) bool {
	c := v
	c.BeforeExtra, c.AfterExtra = nil, nil
	return bytes.Contains(c.Pack(), []byte("\n"))
}

// isSpace reports whether b is whitespace only (no comment).
func isSpace(b []byte) bool { return len(bytes.Trim(b, " \t\r\n")) == 0 }

// lcs returns the index pairs of a longest common subsequence of a and b
// (equal as JSON), in order.
func lcs(a, b []any) [][2]int {
	n, m := len(a), len(b)
	t := make([][]int, n+1)
	for i := range t {
		t[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if Same(a[i], b[j]) {
				t[i][j] = t[i+1][j+1] + 1
			} else {
				t[i][j] = max(t[i+1][j], t[i][j+1])
			}
		}
	}
	var out [][2]int
	for i, j := 0, 0; i < n && j < m; {
		switch {
		case Same(a[i], b[j]):
			out = append(out, [2]int{i, j})
			i++
			j++
		case t[i+1][j] >= t[i][j+1]:
			i++
		default:
			j++
		}
	}
	return out
}

// writeLine writes v on one line: {"a": 1, "b": [2, 3]}.
func writeLine(b *bytes.Buffer, v any) {
	switch t := v.(type) {
	case *Object:
		b.WriteString("{")
		for i, k := range t.keys {
			if i > 0 {
				b.WriteString(", ")
			}
			writeString(b, k)
			b.WriteString(": ")
			writeLine(b, t.vals[k])
		}
		b.WriteString("}")
	case []any:
		b.WriteString("[")
		for i, e := range t {
			if i > 0 {
				b.WriteString(", ")
			}
			writeLine(b, e)
		}
		b.WriteString("]")
	default:
		writeValue(b, v, 0, "")
	}
}
