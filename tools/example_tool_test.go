package tools_test

import (
	"context"
	"fmt"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/tools"
)

// WeatherArgs are the parameters of the get_weather tool. The jsonschema tag
// is the description the model sees; the enum tag lists the allowed values.
type WeatherArgs struct {
	City string `json:"city" jsonschema:"the city name"`
	Unit string `json:"unit,omitempty" enum:"c,f"`
}

// Weather is the tool's result.
type Weather struct {
	Temp float64 `json:"temp"`
	Unit string  `json:"unit"`
}

func ExampleNewTool() {
	tool, err := tools.NewTool("get_weather", "Current weather for a city.",
		func(ctx context.Context, in WeatherArgs) (Weather, error) {
			return Weather{Temp: 21.5, Unit: "c"}, nil
		}, tools.WithRisk(tools.RiskReadOnly))
	if err != nil {
		fmt.Println(err)
		return
	}
	spec := tool.Spec()
	fmt.Println(spec.Name, tool.Risk())
	fmt.Println(string(spec.InputSchema))
	// Output:
	// get_weather read-only
	// {"type":"object","properties":{"city":{"type":"string","description":"the city name"},"unit":{"type":"string","enum":["c","f"]}},"required":["city"],"additionalProperties":false}
}

func ExampleRegistry_Execute() {
	tool, err := tools.NewTool("get_weather", "Current weather for a city.",
		func(ctx context.Context, in WeatherArgs) (Weather, error) {
			return Weather{Temp: 21.5, Unit: "c"}, nil
		})
	if err != nil {
		fmt.Println(err)
		return
	}
	r := tools.NewRegistry()
	if err := r.Add(tool); err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	calls := []core.Call{
		{ID: "call_1", Name: "get_weather", Arguments: []byte(`{"city":"Paris"}`)},
		{ID: "call_2", Name: "get_weather", Arguments: []byte(`{"unit":"k"}`)},
		{ID: "call_3", Name: "get_wether", Arguments: []byte(`{"city":"Rome"}`)},
	}
	for _, res := range r.ExecuteAll(ctx, calls, tools.ExecOptions{}) {
		fmt.Println(res.CallID, res.IsError, res.Text())
	}
	// Output:
	// call_1 false {"temp":21.5,"unit":"c"}
	// call_2 true arguments do not match the schema of "get_weather": /city: missing; /unit: value must be one of "c", "f"
	// call_3 true unknown tool "get_wether"; did you mean "get_weather"?; available tools: get_weather
}
