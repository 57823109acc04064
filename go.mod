module github.com/toolconform/conform

go 1.26

require (
	github.com/aws/aws-sdk-go-v2 v1.47.7
	github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream v1.7.26
	github.com/elastic/go-seccomp-bpf v1.6.0
	github.com/google/go-cmp v0.7.0
	github.com/google/jsonschema-go v0.4.3
	github.com/kaptinlin/jsonrepair v0.2.15
	github.com/modelcontextprotocol/go-sdk v1.8.0
	github.com/rogpeppe/go-internal v1.16.0
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	github.com/tmaxmax/go-sse v0.11.0
	go.yaml.in/yaml/v4 v4.0.0-rc.6
	golang.org/x/net v0.50.0
	golang.org/x/sys v0.41.0
	golang.org/x/text v0.34.0
	gopkg.in/dnaeon/go-vcr.v4 v4.0.7
	pgregory.net/rapid v1.3.0
)

require (
	github.com/aws/smithy-go v1.28.8 // indirect
	github.com/go-json-experiment/json v0.0.0-20251027170946-4849db3c2f7e // indirect
	github.com/segmentio/asm v1.1.3 // indirect
	github.com/segmentio/encoding v0.5.4 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	golang.org/x/oauth2 v0.35.0 // indirect
	golang.org/x/sync v0.20.0 // indirect
	golang.org/x/time v0.15.0 // indirect
	golang.org/x/tools v0.42.0 // indirect
)
