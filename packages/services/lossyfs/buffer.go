package main

import (
	"errors"
	"fmt"
	"sort"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// errDead: the buffer was dropped meanwhile; the backing file holds everything.
var errDead = errors.New("buffer dropped")

// pageSize is the unit a buffer keeps file data in, the page of a page cache.
const pageSize = 4096

// buffer is one file's written-but-not-yet-fsynced data: what a kernel's page
// cache holds for it between a write and an fsync. Reads see the backing file
// overlaid with the buffer; an fsync writes the buffer into the backing file.
// A crash of the daemon loses it, and with it every unsynced write.
type buffer struct {
	mu sync.Mutex
	// fd is the backing file, opened read-write by the daemon: a file opened
	// read-only may still be fsynced (PostgreSQL's startup sync does so), and
	// an unlinked file's buffer still reaches its inode.
	fd int
	// pages are the dirty pages, whole: a partial write reads the rest first.
	// Bytes past size in a page are zero.
	pages map[int64][]byte
	// size is the file's size as its users see it.
	size int64
	// floor: backing bytes at and past it read as zeros, unless a dirty page
	// covers them. A truncate below the backing file's size, not yet synced,
	// sets it, so a later extension shows zeros and not the old bytes.
	floor int64
	// backing is the backing file's size when the buffer was made or last synced.
	backing int64
	// mtime of the last buffered change, shown by stat before the fsync.
	mtime time.Time
	// dead: synced clean and dropped from the store; whoever holds it must look again.
	dead bool
}

func fileSize(fd int) (int64, error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return 0, err
	}
	return st.Size, nil
}

// preadFull reads len(p) bytes at off, or fewer at end of file; the rest of p is left zero.
func preadFull(fd int, p []byte, off int64) error {
	for done := 0; done < len(p); {
		n, err := unix.Pread(fd, p[done:], off+int64(done))
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		if n == 0 {
			return nil
		}
		done += n
	}
	return nil
}

func pwriteFull(fd int, p []byte, off int64) error {
	for done := 0; done < len(p); {
		n, err := unix.Pwrite(fd, p[done:], off+int64(done))
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		done += n
	}
	return nil
}

// load returns page idx as the file's users see it; the caller holds b.mu.
func (b *buffer) load(idx int64) ([]byte, error) {
	if p, ok := b.pages[idx]; ok {
		return p, nil
	}
	p := make([]byte, pageSize)
	start := idx * pageSize
	if start < b.floor {
		if err := preadFull(b.fd, p, start); err != nil {
			return nil, err
		}
		if cut := b.floor - start; cut < pageSize {
			clear(p[cut:])
		}
	}
	if end := b.size - start; end < pageSize {
		clear(p[max(end, 0):])
	}
	return p, nil
}

// readAt fills dest from off (short at the end of the file) and returns how many bytes it read.
func (b *buffer) readAt(dest []byte, off int64) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.dead {
		return 0, errDead
	}
	if off >= b.size {
		return 0, nil
	}
	n := int(min(int64(len(dest)), b.size-off))
	for done := 0; done < n; {
		pos := off + int64(done)
		p, err := b.load(pos / pageSize)
		if err != nil {
			return done, err
		}
		done += copy(dest[done:n], p[pos%pageSize:])
	}
	return n, nil
}

// writeAt buffers data at off; the caller holds b.mu.
func (b *buffer) writeAt(data []byte, off int64) error {
	for done := 0; done < len(data); {
		pos := off + int64(done)
		idx, in := pos/pageSize, pos%pageSize
		var p []byte
		if in == 0 && len(data)-done >= pageSize {
			// a whole page: nothing of the old one shows
			p = make([]byte, pageSize)
		} else {
			var err error
			if p, err = b.load(idx); err != nil {
				return err
			}
		}
		done += copy(p[in:], data[done:])
		b.pages[idx] = p
	}
	b.size = max(b.size, off+int64(len(data)))
	b.mtime = time.Now()
	return nil
}

// truncate sets the size as ftruncate does; the caller holds b.mu.
func (b *buffer) truncate(size int64) {
	if size < b.size {
		for idx, p := range b.pages {
			start := idx * pageSize
			if start >= size {
				delete(b.pages, idx)
			} else if size-start < pageSize {
				clear(p[size-start:])
			}
		}
		b.floor = min(b.floor, size)
	}
	b.size = size
	b.mtime = time.Now()
}

// clean: nothing differs from the backing file.
func (b *buffer) clean() bool {
	return len(b.pages) == 0 && b.floor == b.size && b.size == b.backing
}

// sync writes the buffer into the backing file; the caller holds b.mu. The
// backing file is the disk of this model: it is not fsynced itself (a crash
// of the daemon leaves it as it is).
func (b *buffer) sync() error {
	backing, err := fileSize(b.fd)
	if err != nil {
		return err
	}
	if b.floor < backing {
		if err := unix.Ftruncate(b.fd, b.floor); err != nil {
			return err
		}
	}
	idxs := make([]int64, 0, len(b.pages))
	for idx := range b.pages {
		idxs = append(idxs, idx)
	}
	sort.Slice(idxs, func(i, j int) bool { return idxs[i] < idxs[j] })
	for _, idx := range idxs {
		start := idx * pageSize
		if start >= b.size {
			continue
		}
		if err := pwriteFull(b.fd, b.pages[idx][:min(pageSize, b.size-start)], start); err != nil {
			return err
		}
	}
	if err := unix.Ftruncate(b.fd, b.size); err != nil {
		return err
	}
	clear(b.pages)
	b.floor = b.size
	b.backing = b.size
	return nil
}

// store holds the buffers of every file with unsynced data, by backing inode
// number: hard links share one, and a rename keeps it.
type store struct {
	mu    sync.Mutex
	bufs  map[uint64]*buffer
	opens map[uint64]int
}

func newStore() *store {
	return &store{bufs: map[uint64]*buffer{}, opens: map[uint64]int{}}
}

func (s *store) get(ino uint64) *buffer {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bufs[ino]
}

// acquire returns the buffer of ino, locked, made with reopen's descriptor if
// there is none. The caller unlocks it and then calls settle.
func (s *store) acquire(ino uint64, reopen func() (int, error)) (*buffer, error) {
	for {
		s.mu.Lock()
		b := s.bufs[ino]
		s.mu.Unlock()
		if b == nil {
			fd, err := reopen()
			if err != nil {
				return nil, err
			}
			size, err := fileSize(fd)
			if err != nil {
				unix.Close(fd)
				return nil, err
			}
			fresh := &buffer{fd: fd, pages: map[int64][]byte{}, size: size, floor: size, backing: size}
			s.mu.Lock()
			if s.bufs[ino] == nil {
				s.bufs[ino] = fresh
				b = fresh
			}
			s.mu.Unlock()
			if b != fresh {
				unix.Close(fd)
				continue
			}
		}
		b.mu.Lock()
		if !b.dead {
			return b, nil
		}
		b.mu.Unlock()
	}
}

// settle drops the buffer of ino once it holds nothing: synced clean, or its
// file is unlinked and no longer open (its data can never be read again).
// The caller holds b.mu.
func (s *store) settle(ino uint64, b *buffer) {
	if b.dead {
		return
	}
	drop := b.clean()
	if !drop {
		var st unix.Stat_t
		s.mu.Lock()
		open := s.opens[ino] > 0
		s.mu.Unlock()
		drop = !open && unix.Fstat(b.fd, &st) == nil && st.Nlink == 0
	}
	if !drop {
		return
	}
	b.dead = true
	unix.Close(b.fd)
	s.mu.Lock()
	if s.bufs[ino] == b {
		delete(s.bufs, ino)
	}
	s.mu.Unlock()
}

// check settles the buffer of ino, if it has one (after an unlink, a rename over it, a release).
func (s *store) check(ino uint64) {
	if b := s.get(ino); b != nil {
		b.mu.Lock()
		s.settle(ino, b)
		b.mu.Unlock()
	}
}

func (s *store) opened(ino uint64) {
	s.mu.Lock()
	s.opens[ino]++
	s.mu.Unlock()
}

func (s *store) released(ino uint64) {
	s.mu.Lock()
	if s.opens[ino]--; s.opens[ino] <= 0 {
		delete(s.opens, ino)
	}
	s.mu.Unlock()
	s.check(ino)
}

// syncAll writes every buffer into its backing file: a clean unmount.
func (s *store) syncAll() error {
	s.mu.Lock()
	inos := make([]uint64, 0, len(s.bufs))
	for ino := range s.bufs {
		inos = append(inos, ino)
	}
	s.mu.Unlock()
	var failed error
	for _, ino := range inos {
		b := s.get(ino)
		if b == nil {
			continue
		}
		b.mu.Lock()
		if !b.dead {
			if err := b.sync(); err != nil {
				failed = fmt.Errorf("inode %d: %w", ino, err)
			} else {
				s.settle(ino, b)
			}
		}
		b.mu.Unlock()
	}
	return failed
}
