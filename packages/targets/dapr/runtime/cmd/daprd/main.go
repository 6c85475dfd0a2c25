// daprd with exactly the components this target configures: the PostgreSQL
// state store (the actor state store) and mDNS name resolution (the
// self-hosted default daprd looks up even when only actors are used). The
// release binary registers every component behind build tags; registering
// two keeps the build to a fraction of the modules.
package main

import (
	mdns "github.com/dapr/components-contrib/nameresolution/mdns"
	pgv1 "github.com/dapr/components-contrib/state/postgresql/v1"
	pgv2 "github.com/dapr/components-contrib/state/postgresql/v2"
	"github.com/dapr/dapr/cmd/daprd/app"
	"github.com/dapr/dapr/pkg/components"
	nrLoader "github.com/dapr/dapr/pkg/components/nameresolution"
	stateLoader "github.com/dapr/dapr/pkg/components/state"
)

func main() {
	nrLoader.DefaultRegistry.RegisterComponent(mdns.NewResolver, "mdns")
	stateLoader.DefaultRegistry.RegisterComponentWithVersions("postgresql", components.Versioning{
		Preferred: components.VersionConstructor{Version: "v2", Constructor: pgv2.NewPostgreSQLStateStore},
		Others:    []components.VersionConstructor{{Version: "v1", Constructor: pgv1.NewPostgreSQLStateStore}},
		Default:   "v1",
	})
	app.Run()
}
