// The placement service that assigns actor ids to the app processes
// hosting their type, as the release binary builds it.
package main

import "github.com/dapr/dapr/cmd/placement/app"

func main() {
	app.Run()
}
