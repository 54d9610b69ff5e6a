// Stock kube-scheduler: upstream's cmd/kube-scheduler/scheduler.go main, with no out-of-tree plugin,
// built from the k8s.io/kubernetes module of the minor named by the modfile (see ../../build.sh).
package main

import (
	"os"

	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register"
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	_ "k8s.io/component-base/metrics/prometheus/version"
	"k8s.io/kubernetes/cmd/kube-scheduler/app"
)

func main() {
	os.Exit(cli.Run(app.NewSchedulerCommand()))
}
