package streamdec

// SmallMap is a map from strings for the few keys a stream decoder keeps
// (tool call ids, item ids): a list searched in order while it holds up to
// SmallMapList keys, in storage the zero value already has for the first
// four, and a map beyond, so that a stream of a few calls costs no map.
// The zero value is empty and ready to use.
type SmallMap[V any] struct {
	first [4]smallEntry[V]
	list  []smallEntry[V]
	big   map[string]*V
}

type smallEntry[V any] struct {
	key string
	val V
}

// SmallMapList is how many keys a SmallMap keeps in its list.
const SmallMapList = 16

// Get returns the value of key k, or nil. The pointer is valid until the
// next Put.
func (m *SmallMap[V]) Get(k string) *V {
	if m.big != nil {
		return m.big[k]
	}
	for i := range m.list {
		if m.list[i].key == k {
			return &m.list[i].val
		}
	}
	return nil
}

// Put sets the value of key k.
func (m *SmallMap[V]) Put(k string, v V) {
	if p := m.Get(k); p != nil {
		*p = v
		return
	}
	switch {
	case m.big == nil && m.list == nil:
		m.list = append(m.first[:0], smallEntry[V]{k, v})
	case m.big == nil && len(m.list) < SmallMapList:
		m.list = append(m.list, smallEntry[V]{k, v})
	default:
		if m.big == nil {
			m.big = make(map[string]*V, 2*SmallMapList)
			for i := range m.list {
				m.big[m.list[i].key] = &m.list[i].val
			}
			m.list = nil
		}
		p := new(V)
		*p = v
		m.big[k] = p
	}
}

// Len returns the number of keys.
func (m *SmallMap[V]) Len() int {
	if m.big != nil {
		return len(m.big)
	}
	return len(m.list)
}
