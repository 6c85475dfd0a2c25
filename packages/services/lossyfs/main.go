// lossyfs mounts a directory through FUSE and keeps every file's unsynced
// writes in its own memory until the file is fsynced: a disk with a volatile
// cache. Killing it (kill -9) is a machine crash: what was not fsynced is
// gone, what was is in the backing directory.
//
//	lossyfs [-debug] <backing-dir> <mountpoint>
//
// It runs in the foreground and prints a line starting with "lossyfs: ready"
// once the mount is usable. SIGTERM or SIGINT is a clean shutdown: every
// buffer is written to the backing directory, then the mount goes.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

func main() {
	debug := flag.Bool("debug", false, "log every FUSE request")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: lossyfs [-debug] <backing-dir> <mountpoint>")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 2 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(flag.Arg(0), flag.Arg(1), *debug); err != nil {
		fmt.Fprintf(os.Stderr, "lossyfs: %v\n", err)
		os.Exit(1)
	}
}

func run(backingArg, mountArg string, debug bool) error {
	backing, err := filepath.Abs(backingArg)
	if err != nil {
		return err
	}
	mountpoint, err := filepath.Abs(mountArg)
	if err != nil {
		return err
	}
	loop, err := fs.NewLoopbackRoot(backing)
	if err != nil {
		return fmt.Errorf("backing directory %s: %w", backing, err)
	}
	lb := loop.(*fs.LoopbackNode)
	store := newStore()
	root := &node{LoopbackNode: lb, store: store}
	lb.RootData.RootNode = root

	server, err := fs.Mount(mountpoint, root, &fs.Options{
		MountOptions: fuse.MountOptions{
			// PostgreSQL runs as a user of its own when sfbench is root: it must reach the mount
			AllowOther: os.Geteuid() == 0,
			// the kernel checks modes and owners, as on a disk, instead of letting every user do what root may
			Options: []string{"default_permissions"},
			FsName:  "lossyfs",
			Name:    "lossyfs",
			Debug:   debug,
		},
	})
	if err != nil {
		return fmt.Errorf("mount %s on %s: %w", backing, mountpoint, err)
	}
	fmt.Printf("lossyfs: ready: %s on %s (pid %d)\n", backing, mountpoint, os.Getpid())

	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	served := make(chan struct{})
	go func() {
		server.Wait()
		close(served)
	}()
	select {
	case sig := <-stop:
		fmt.Printf("lossyfs: %v: writing every buffer to %s, then unmounting\n", sig, backing)
		if err := store.syncAll(); err != nil {
			return fmt.Errorf("writing the buffers: %w", err)
		}
		if err := server.Unmount(); err != nil {
			return fmt.Errorf("unmount %s (the buffers are written): %w", mountpoint, err)
		}
	case <-served:
		// unmounted from outside (fusermount3 -u, umount): like a disk's, the cache is written first
	}
	if err := store.syncAll(); err != nil {
		return fmt.Errorf("writing the buffers: %w", err)
	}
	fmt.Println("lossyfs: unmounted")
	return nil
}
