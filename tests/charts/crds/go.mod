// The CRDs the chart's optional objects need, from their projects' own modules at pinned releases:
// cert-manager's Certificate and Issuer (tls.mode certManager) and the Prometheus Operator's
// ServiceMonitor (metrics.serviceMonitor.enabled). tests/charts/run installs them into the e2e control
// plane (`go mod download -json MODULE` here names the directory) before the server-side dry runs.
module kube-extender.test/charts/crds

go 1.26.0

require (
	github.com/cert-manager/cert-manager v1.21.2
	github.com/prometheus-operator/prometheus-operator v0.85.0
)
