package textcalls

// formats is the list of built-in formats.
var formats = []*Format{
	hermes,
	thinkOnly,
	qwen3Coder,
	glm45,
	glm47,
	deepseekV3,
	deepseekV31,
	kimiK2,
	mistralV3,
	granite,
	phi4Mini,
	llama3JSON,
	bareJSONFormat,
	jsonList,
	mistralV11,
	minimaxM2,
	deepseekV32,
	pythonic,
	llama4Pythonic,
	lfm2,
	olmo3,
	gptOSSHarmony,
}
