module github.com/sfbench/sfbench/packages/services/lossyfs

go 1.25.0

require (
	github.com/hanwen/go-fuse/v2 v2.12.1
	golang.org/x/sys v0.28.0
)
