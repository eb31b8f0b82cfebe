package recur

import (
	"container/heap"
	"iter"
	"slices"
	"strings"
	"time"
)

// Keyed is a value with the key a listing orders it by: a time (a start,
// or a last update), then an id.
type Keyed[T any] struct {
	Key time.Time
	ID  string
	V   T
}

// CompareKeyed orders by key, then by id.
func CompareKeyed[T any](a, b Keyed[T]) int {
	if c := a.Key.Compare(b.Key); c != 0 {
		return c
	}
	return strings.Compare(a.ID, b.ID)
}

// Stream yields the values of one source (a series' instances, or the
// non-recurring events) in (key, id) order, holding only the values that
// share the current key. Stop it when done with it.
type Stream[T any] struct {
	next       func() (T, bool)
	stop       func()
	key        func(T) Keyed[T]
	pending    Keyed[T] // first value of the next key, when hasPending
	hasPending bool
	group      []Keyed[T] // values of the current key, by id; group[0] is the head
}

// NewStream returns the stream of seq, which yields in key order; key
// gives a value's key and id.
func NewStream[T any](seq iter.Seq[T], key func(T) Keyed[T]) *Stream[T] {
	s := &Stream[T]{key: key}
	s.next, s.stop = iter.Pull(seq)
	s.fill()
	return s
}

// Stop ends the source's iteration.
func (s *Stream[T]) Stop() { s.stop() }

// fill loads the values of the next key and sorts them by id: a source
// yields by key only (a moved instance can land on another's start).
func (s *Stream[T]) fill() {
	s.group = s.group[:0]
	if !s.hasPending {
		v, ok := s.next()
		if !ok {
			return
		}
		s.pending, s.hasPending = s.key(v), true
	}
	k := s.pending.Key
	for s.hasPending && s.pending.Key.Equal(k) {
		s.group = append(s.group, s.pending)
		if v, ok := s.next(); ok {
			s.pending = s.key(v)
		} else {
			s.hasPending = false
		}
	}
	slices.SortFunc(s.group, CompareKeyed)
}

func (s *Stream[T]) pop() Keyed[T] {
	h := s.group[0]
	s.group = s.group[1:]
	if len(s.group) == 0 {
		s.fill()
	}
	return h
}

// streamHeap orders streams by their head value.
type streamHeap[T any] []*Stream[T]

func (h streamHeap[T]) Len() int           { return len(h) }
func (h streamHeap[T]) Less(i, j int) bool { return CompareKeyed(h[i].group[0], h[j].group[0]) < 0 }
func (h streamHeap[T]) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *streamHeap[T]) Push(x any)        { *h = append(*h, x.(*Stream[T])) }
func (h *streamHeap[T]) Pop() any {
	old := *h
	s := old[len(old)-1]
	*h = old[:len(old)-1]
	return s
}

// Merge yields the values of every stream in (key, id) order.
func Merge[T any](streams []*Stream[T]) iter.Seq[Keyed[T]] {
	return func(yield func(Keyed[T]) bool) {
		h := make(streamHeap[T], 0, len(streams))
		for _, s := range streams {
			if len(s.group) > 0 {
				h = append(h, s)
			}
		}
		heap.Init(&h)
		for h.Len() > 0 {
			s := h[0]
			kv := s.pop()
			if len(s.group) == 0 {
				heap.Pop(&h)
			} else {
				heap.Fix(&h, 0)
			}
			if !yield(kv) {
				return
			}
		}
	}
}
