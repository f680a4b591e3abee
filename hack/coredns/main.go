// Command coredns is CoreDNS with the plugins a Kubernetes cluster's DNS uses, for
// the local cluster (hack/coredns/build.sh, hack/cluster/cluster.sh): Service and
// Pod names under cluster.local from the kubernetes plugin, everything else
// forwarded to the machine's resolver. CoreDNS documents compiling a custom binary
// this way (a main that imports the plugins and sets their order); its full build
// links every cloud provider's SDK, which a local cluster has no use for.
package main

import (
	"github.com/coredns/coredns/core/dnsserver"
	"github.com/coredns/coredns/coremain"

	// The plugins the Corefile (hack/cluster/cluster.sh) uses.
	_ "github.com/coredns/coredns/plugin/acl"
	_ "github.com/coredns/coredns/plugin/bind"
	_ "github.com/coredns/coredns/plugin/cache"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/forward"
	_ "github.com/coredns/coredns/plugin/health"
	_ "github.com/coredns/coredns/plugin/kubernetes"
	_ "github.com/coredns/coredns/plugin/loop"
	_ "github.com/coredns/coredns/plugin/ready"
)

// directives are the plugins in the order CoreDNS's plugin.cfg runs them.
var directives = []string{"bind", "ready", "health", "errors", "acl", "cache", "kubernetes", "loop", "forward"}

func init() { dnsserver.Directives = directives }

func main() { coremain.Run() }
