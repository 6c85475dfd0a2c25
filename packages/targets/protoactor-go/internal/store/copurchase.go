package store

import (
	"context"
	"log/slog"
	"sort"
	"sync"
	"time"
)

type pair struct{ p, q string }

// CoPurchaseWriter persists co-purchase increments in batches, off the
// grains' message loop: a product grain updates its counts in memory and hands
// the increment here; one loop per member writes what accumulated with one
// statement per batch (key order, so concurrent writers cannot deadlock).
type CoPurchaseWriter struct {
	store   *Store
	log     *slog.Logger
	mu      sync.Mutex
	pending map[pair]int64
	wake    chan struct{}
	done    chan struct{}
	closing chan struct{}
	once    sync.Once
}

const batchSize = 5000

func NewCoPurchaseWriter(s *Store, log *slog.Logger) *CoPurchaseWriter {
	w := &CoPurchaseWriter{store: s, log: log, pending: map[pair]int64{}, wake: make(chan struct{}, 1), done: make(chan struct{}), closing: make(chan struct{})}
	go w.loop()
	return w
}

// Add records count[p][q] += n.
func (w *CoPurchaseWriter) Add(p, q string, n int64) {
	w.mu.Lock()
	w.pending[pair{p, q}] += n
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// Pending is how many (p, q) increments are not written yet.
func (w *CoPurchaseWriter) Pending() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.pending)
}

func (w *CoPurchaseWriter) take() []pair {
	w.mu.Lock()
	defer w.mu.Unlock()
	keys := make([]pair, 0, len(w.pending))
	for k := range w.pending {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].p != keys[j].p {
			return keys[i].p < keys[j].p
		}
		return keys[i].q < keys[j].q
	})
	if len(keys) > batchSize {
		keys = keys[:batchSize]
	}
	return keys
}

// flush writes one batch; on failure the increments stay pending and are retried.
func (w *CoPurchaseWriter) flush() bool {
	keys := w.take()
	if len(keys) == 0 {
		return false
	}
	ps, qs, ns := make([]string, len(keys)), make([]string, len(keys)), make([]int64, len(keys))
	w.mu.Lock()
	for i, k := range keys {
		ps[i], qs[i], ns[i] = k.p, k.q, w.pending[k]
	}
	w.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := w.store.AddCoPurchase(ctx, ps, qs, ns); err != nil {
		w.log.Warn("co-purchase write failed; retrying", "error", err, "rows", len(keys))
		time.Sleep(200 * time.Millisecond)
		return true
	}
	w.mu.Lock()
	for i, k := range keys {
		if w.pending[k] -= ns[i]; w.pending[k] == 0 {
			delete(w.pending, k)
		}
	}
	w.mu.Unlock()
	return true
}

func (w *CoPurchaseWriter) loop() {
	defer close(w.done)
	for {
		select {
		case <-w.wake:
		case <-w.closing:
			for w.Pending() > 0 {
				w.flush()
			}
			return
		}
		// let increments of concurrent orders gather into one statement
		time.Sleep(5 * time.Millisecond)
		for w.flush() {
		}
	}
}

// Close writes everything pending, then returns. Idempotent.
func (w *CoPurchaseWriter) Close() {
	w.once.Do(func() { close(w.closing) })
	<-w.done
}
