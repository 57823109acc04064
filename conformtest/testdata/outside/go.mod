module example.com/outside

go 1.26

require github.com/toolconform/conform v0.0.0

require (
	github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream v1.7.26 // indirect
	github.com/aws/smithy-go v1.28.8 // indirect
	github.com/go-json-experiment/json v0.0.0-20251027170946-4849db3c2f7e // indirect
	github.com/google/go-cmp v0.7.0 // indirect
	github.com/google/jsonschema-go v0.4.3 // indirect
	github.com/kaptinlin/jsonrepair v0.2.15 // indirect
	github.com/rogpeppe/go-internal v1.16.0 // indirect
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3 // indirect
	go.yaml.in/yaml/v4 v4.0.0-rc.6 // indirect
	golang.org/x/text v0.34.0 // indirect
	golang.org/x/tools v0.42.0 // indirect
	gopkg.in/dnaeon/go-vcr.v4 v4.0.7 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
)

replace github.com/toolconform/conform => ../../..
