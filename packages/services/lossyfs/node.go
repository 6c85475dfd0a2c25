package main

import (
	"context"
	"fmt"
	"path/filepath"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
	"golang.org/x/sys/unix"
)

// node is go-fuse's loopback node with the data of regular files kept in the
// store until fsync. Metadata operations (create, mkdir, rename, unlink,
// link, symlink, chmod, chown, utimes) are the loopback's: they reach the
// backing directory at once.
type node struct {
	*fs.LoopbackNode
	store *store
}

var (
	_ fs.NodeWrapChilder    = (*node)(nil)
	_ fs.NodeOpener         = (*node)(nil)
	_ fs.NodeCreater        = (*node)(nil)
	_ fs.NodeReader         = (*node)(nil)
	_ fs.NodeWritever       = (*node)(nil)
	_ fs.NodeFsyncer        = (*node)(nil)
	_ fs.NodeFlusher        = (*node)(nil)
	_ fs.NodeReleaser       = (*node)(nil)
	_ fs.NodeGetattrer      = (*node)(nil)
	_ fs.NodeSetattrer      = (*node)(nil)
	_ fs.NodeStatxer        = (*node)(nil)
	_ fs.NodeAllocater      = (*node)(nil)
	_ fs.NodeLseeker        = (*node)(nil)
	_ fs.NodeCopyFileRanger = (*node)(nil)
	_ fs.NodeTmpfiler       = (*node)(nil)
	_ fs.NodeLookuper       = (*node)(nil)
	_ fs.NodeLinker         = (*node)(nil)
	_ fs.NodeUnlinker       = (*node)(nil)
	_ fs.NodeRenamer        = (*node)(nil)
)

// WrapChild makes every node the loopback creates one of ours.
func (n *node) WrapChild(ctx context.Context, ops fs.InodeEmbedder) fs.InodeEmbedder {
	return &node{LoopbackNode: ops.(*fs.LoopbackNode), store: n.store}
}

// handle is an open regular file: the backing file's descriptor (read-write
// when the daemon may, see adopt) and its inode number, the store's key.
type handle struct {
	fd  int
	ino uint64
	// dsync: opened O_SYNC or O_DSYNC, so every write is durable when it returns.
	dsync bool
}

// reopen opens the handle's file read-write again, for its buffer: a
// descriptor of its own that outlives the handle.
func (h *handle) reopen() (int, error) {
	return unix.Open(fmt.Sprintf("/proc/self/fd/%d", h.fd), unix.O_RDWR|unix.O_CLOEXEC, 0)
}

// the flags lossyfs keeps from the backing open: it truncates, syncs and
// caches itself, and O_DIRECT would ask aligned buffers of its own writes
const handledFlags = syscall.O_TRUNC | syscall.O_DIRECT | syscall.O_DSYNC | syscall.O_SYNC

func isRegular(mode uint32) bool { return mode&syscall.S_IFMT == syscall.S_IFREG }

func (n *node) rootInode() *fs.Inode { return n.RootData.RootNode.EmbeddedInode() }

func (n *node) backingPath() string {
	return filepath.Join(n.RootData.Path, n.Path(n.rootInode()))
}

func (n *node) childPath(parent fs.InodeEmbedder, name string) string {
	return filepath.Join(n.RootData.Path, parent.EmbeddedInode().Path(n.rootInode()), name)
}

// adopt turns the loopback's file into a handle: its own descriptor,
// read-write when possible (a read-only open may be fsynced, and the buffer
// reads around partial writes), and a truncate to zero when asked for.
func (n *node) adopt(lf fs.FileHandle, flags uint32) (*handle, syscall.Errno) {
	loop, ok := lf.(*fs.LoopbackFile)
	if !ok {
		return nil, syscall.EIO
	}
	defer loop.Release(context.Background())
	fd, _ := loop.PassthroughFd()
	own, err := unix.Open(fmt.Sprintf("/proc/self/fd/%d", fd), unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		// a read-only backing file system: the handle can still read
		if own, err = unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0); err != nil {
			return nil, fs.ToErrno(err)
		}
	}
	var st unix.Stat_t
	if err := unix.Fstat(own, &st); err != nil {
		unix.Close(own)
		return nil, fs.ToErrno(err)
	}
	h := &handle{fd: own, ino: st.Ino, dsync: flags&syscall.O_DSYNC != 0}
	n.store.opened(h.ino)
	if flags&syscall.O_TRUNC != 0 {
		if errno := n.truncate(h.ino, h.reopen, 0); errno != 0 {
			unix.Close(own)
			n.store.released(h.ino)
			return nil, errno
		}
	}
	return h, 0
}

func (n *node) Open(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	if !isRegular(n.StableAttr().Mode) {
		return n.LoopbackNode.Open(ctx, flags)
	}
	lf, fuseFlags, errno := n.LoopbackNode.Open(ctx, flags&^handledFlags)
	if errno != 0 {
		return nil, 0, errno
	}
	h, errno := n.adopt(lf, flags)
	if errno != 0 {
		return nil, 0, errno
	}
	return h, fuseFlags, 0
}

func (n *node) Create(ctx context.Context, name string, flags uint32, mode uint32, out *fuse.EntryOut) (*fs.Inode, fs.FileHandle, uint32, syscall.Errno) {
	child, lf, fuseFlags, errno := n.LoopbackNode.Create(ctx, name, flags&^handledFlags, mode, out)
	if errno != 0 {
		return nil, nil, 0, errno
	}
	h, errno := n.adopt(lf, flags)
	if errno != 0 {
		return nil, nil, 0, errno
	}
	n.overlay(&out.Attr)
	return child, h, fuseFlags, 0
}

// Tmpfile is refused: the loopback's would bypass the buffer, and callers fall back to a named file.
func (n *node) Tmpfile(ctx context.Context, flags uint32, mode uint32, out *fuse.EntryOut) (*fs.Inode, fs.FileHandle, uint32, syscall.Errno) {
	return nil, nil, 0, syscall.EOPNOTSUPP
}

func (n *node) Read(ctx context.Context, f fs.FileHandle, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	h, ok := f.(*handle)
	if !ok {
		if r, ok := f.(fs.FileReader); ok {
			return r.Read(ctx, dest, off)
		}
		return nil, syscall.EBADF
	}
	if b := n.store.get(h.ino); b != nil {
		k, err := b.readAt(dest, off)
		if err != errDead {
			if err != nil {
				return nil, fs.ToErrno(err)
			}
			return fuse.ReadResultData(dest[:k]), 0
		}
	}
	k := 0
	for k < len(dest) {
		got, err := unix.Pread(h.fd, dest[k:], off+int64(k))
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, fs.ToErrno(err)
		}
		if got == 0 {
			break
		}
		k += got
	}
	return fuse.ReadResultData(dest[:k]), 0
}

func (n *node) Writev(ctx context.Context, f fs.FileHandle, data [][]byte, off int64) (uint32, syscall.Errno) {
	h, ok := f.(*handle)
	if !ok {
		if w, ok := f.(fs.FileWritever); ok {
			return w.Writev(ctx, data, off)
		}
		return 0, syscall.EBADF
	}
	b, err := n.store.acquire(h.ino, h.reopen)
	if err != nil {
		return 0, fs.ToErrno(err)
	}
	defer b.mu.Unlock()
	written := 0
	for _, d := range data {
		if err := b.writeAt(d, off+int64(written)); err != nil {
			return uint32(written), fs.ToErrno(err)
		}
		written += len(d)
	}
	if h.dsync {
		if err := b.sync(); err != nil {
			return 0, fs.ToErrno(err)
		}
		n.store.settle(h.ino, b)
	}
	return uint32(written), 0
}

// Fsync is the one way data reaches the backing file: fsync and fdatasync
// alike write the file's buffer.
func (n *node) Fsync(ctx context.Context, f fs.FileHandle, flags uint32) syscall.Errno {
	var ino uint64
	switch h := f.(type) {
	case *handle:
		ino = h.ino
	case fs.FileFsyncer:
		return h.Fsync(ctx, flags)
	default:
		var st unix.Stat_t
		if err := unix.Lstat(n.backingPath(), &st); err != nil {
			return fs.ToErrno(err)
		}
		ino = st.Ino
	}
	b := n.store.get(ino)
	if b == nil {
		return 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.dead {
		return 0
	}
	if err := b.sync(); err != nil {
		return fs.ToErrno(err)
	}
	n.store.settle(ino, b)
	return 0
}

// Flush (every close) writes nothing: close is not a sync, and a disk cache keeps the data.
func (n *node) Flush(ctx context.Context, f fs.FileHandle) syscall.Errno {
	if fl, ok := f.(fs.FileFlusher); ok {
		return fl.Flush(ctx)
	}
	return 0
}

func (n *node) Release(ctx context.Context, f fs.FileHandle) syscall.Errno {
	h, ok := f.(*handle)
	if !ok {
		if r, ok := f.(fs.FileReleaser); ok {
			return r.Release(ctx)
		}
		return 0
	}
	err := unix.Close(h.fd)
	n.store.released(h.ino)
	return fs.ToErrno(err)
}

// overlay shows a file's buffered size and mtime in attributes read from the backing file.
func (n *node) overlay(a *fuse.Attr) {
	if !isRegular(a.Mode) {
		return
	}
	b := n.store.get(a.Ino)
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.dead {
		return
	}
	a.Size = uint64(b.size)
	a.Blocks = (a.Size + 511) / 512
	if sec, nsec := uint64(b.mtime.Unix()), uint32(b.mtime.Nanosecond()); sec > a.Mtime || sec == a.Mtime && nsec > a.Mtimensec {
		a.Mtime, a.Mtimensec = sec, nsec
		a.Ctime, a.Ctimensec = sec, nsec
	}
}

func (n *node) overlayStatx(x *fuse.Statx) {
	a := fuse.Attr{Ino: x.Ino, Mode: uint32(x.Mode), Size: x.Size, Blocks: x.Blocks, Mtime: x.Mtime.Sec, Mtimensec: x.Mtime.Nsec}
	n.overlay(&a)
	x.Size, x.Blocks = a.Size, a.Blocks
	if a.Mtime != x.Mtime.Sec || a.Mtimensec != x.Mtime.Nsec {
		x.Mtime.Sec, x.Mtime.Nsec = a.Mtime, a.Mtimensec
		x.Ctime = x.Mtime
	}
}

func (n *node) Getattr(ctx context.Context, f fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	if h, ok := f.(*handle); ok {
		var st syscall.Stat_t
		if err := syscall.Fstat(h.fd, &st); err != nil {
			return fs.ToErrno(err)
		}
		out.FromStat(&st)
	} else if errno := n.LoopbackNode.Getattr(ctx, f, out); errno != 0 {
		return errno
	}
	n.overlay(&out.Attr)
	return 0
}

func (n *node) Statx(ctx context.Context, f fs.FileHandle, flags uint32, mask uint32, out *fuse.StatxOut) syscall.Errno {
	if h, ok := f.(*handle); ok {
		var st unix.Statx_t
		if err := unix.Statx(h.fd, "", int(flags)|unix.AT_EMPTY_PATH, int(mask), &st); err != nil {
			return fs.ToErrno(err)
		}
		out.FromStatx(&st)
	} else if errno := n.LoopbackNode.Statx(ctx, f, flags, mask, out); errno != 0 {
		return errno
	}
	n.overlayStatx(&out.Statx)
	return 0
}

// truncate changes the buffered size (ftruncate, O_TRUNC): like a write, it reaches the backing file with the next fsync.
func (n *node) truncate(ino uint64, reopen func() (int, error), size int64) syscall.Errno {
	b, err := n.store.acquire(ino, reopen)
	if err != nil {
		return fs.ToErrno(err)
	}
	defer b.mu.Unlock()
	b.truncate(size)
	n.store.settle(ino, b)
	return 0
}

func (n *node) Setattr(ctx context.Context, f fs.FileHandle, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	h, isHandle := f.(*handle)
	if size, ok := in.GetSize(); ok && isRegular(n.StableAttr().Mode) {
		var ino uint64
		var reopen func() (int, error)
		if isHandle {
			ino, reopen = h.ino, h.reopen
		} else {
			p := n.backingPath()
			var st unix.Stat_t
			if err := unix.Lstat(p, &st); err != nil {
				return fs.ToErrno(err)
			}
			ino = st.Ino
			reopen = func() (int, error) { return unix.Open(p, unix.O_RDWR|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0) }
		}
		if errno := n.truncate(ino, reopen, int64(size)); errno != 0 {
			return errno
		}
		in.Valid &^= fuse.FATTR_SIZE
	}
	if in.Valid&(fuse.FATTR_MODE|fuse.FATTR_UID|fuse.FATTR_GID|fuse.FATTR_SIZE|fuse.FATTR_ATIME|fuse.FATTR_MTIME|fuse.FATTR_ATIME_NOW|fuse.FATTR_MTIME_NOW) != 0 {
		var through fs.FileHandle
		if !isHandle {
			through = f
		}
		if errno := n.LoopbackNode.Setattr(ctx, through, in, out); errno != 0 {
			return errno
		}
	}
	return n.Getattr(ctx, f, out)
}

// Allocate grows the buffered size (posix_fallocate); other modes are refused, and their callers fall back to writes.
func (n *node) Allocate(ctx context.Context, f fs.FileHandle, off uint64, size uint64, mode uint32) syscall.Errno {
	h, ok := f.(*handle)
	if !ok {
		if a, ok := f.(fs.FileAllocater); ok {
			return a.Allocate(ctx, off, size, mode)
		}
		return syscall.EBADF
	}
	switch mode {
	case 0:
		b, err := n.store.acquire(h.ino, h.reopen)
		if err != nil {
			return fs.ToErrno(err)
		}
		defer b.mu.Unlock()
		if end := int64(off + size); end > b.size {
			b.truncate(end)
		}
		n.store.settle(h.ino, b)
		return 0
	case unix.FALLOC_FL_KEEP_SIZE:
		return 0
	default:
		return syscall.EOPNOTSUPP
	}
}

// Lseek answers SEEK_DATA and SEEK_HOLE for the buffered size: the file is all data.
func (n *node) Lseek(ctx context.Context, f fs.FileHandle, off uint64, whence uint32) (uint64, syscall.Errno) {
	h, ok := f.(*handle)
	if !ok {
		if l, ok := f.(fs.FileLseeker); ok {
			return l.Lseek(ctx, off, whence)
		}
		return 0, syscall.EBADF
	}
	var out fuse.AttrOut
	if errno := n.Getattr(ctx, h, &out); errno != 0 {
		return 0, errno
	}
	if off >= out.Size {
		return 0, syscall.ENXIO
	}
	switch whence {
	case unix.SEEK_DATA:
		return off, 0
	case unix.SEEK_HOLE:
		return out.Size, 0
	default:
		return 0, syscall.EINVAL
	}
}

// CopyFileRange is left to the kernel's fallback (reads and writes), which goes through the buffer.
func (n *node) CopyFileRange(ctx context.Context, fhIn fs.FileHandle, offIn uint64, out *fs.Inode, fhOut fs.FileHandle, offOut uint64, len uint64, flags uint64) (uint32, syscall.Errno) {
	return 0, syscall.ENOSYS
}

func (n *node) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	child, errno := n.LoopbackNode.Lookup(ctx, name, out)
	if errno == 0 {
		n.overlay(&out.Attr)
	}
	return child, errno
}

func (n *node) Link(ctx context.Context, target fs.InodeEmbedder, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	if t, ok := target.(*node); ok {
		target = t.LoopbackNode
	}
	child, errno := n.LoopbackNode.Link(ctx, target, name, out)
	if errno == 0 {
		n.overlay(&out.Attr)
	}
	return child, errno
}

// inoAt is the inode number at path, if anything is there.
func inoAt(path string) (uint64, bool) {
	var st unix.Stat_t
	if unix.Lstat(path, &st) != nil || !isRegular(st.Mode) {
		return 0, false
	}
	return st.Ino, true
}

// Unlink drops the buffer of a file whose last name it removes, once nobody has it open.
func (n *node) Unlink(ctx context.Context, name string) syscall.Errno {
	ino, found := inoAt(n.childPath(n, name))
	errno := n.LoopbackNode.Unlink(ctx, name)
	if errno == 0 && found {
		n.store.check(ino)
	}
	return errno
}

// Rename drops the buffer of a file it replaces, as Unlink does.
func (n *node) Rename(ctx context.Context, name string, newParent fs.InodeEmbedder, newName string, flags uint32) syscall.Errno {
	ino, found := inoAt(n.childPath(newParent, newName))
	if p, ok := newParent.(*node); ok {
		newParent = p.LoopbackNode
	}
	errno := n.LoopbackNode.Rename(ctx, name, newParent, newName, flags)
	if errno == 0 && found {
		n.store.check(ino)
	}
	return errno
}
