#!/bin/bash -eu
# Builds every native Go fuzz target of conform as a libFuzzer binary in
# $OUT, inside the ClusterFuzzLite (OSS-Fuzz) builder image. See
# docs/fuzzing.md. The list of targets at the end must match the tree;
# `scripts/fuzz -check`, run by .ci/run, compares the two.
#
# This script edits the copy of the source inside the container only:
#   - go-118-fuzz-build's testing shim is added to go.mod;
#   - in each package with targets, external test files (package x_test)
#     are removed and the other _test.go files become ordinary files, so
#     that a target can use helpers from its package's other test files;
#   - other mentions of a target's name in its directory are renamed,
#     because compile_native_go_fuzzer finds the target's file with
#     grep -rl and needs exactly one.
cd "$SRC/conform"

go get github.com/AdamKorcz/go-118-fuzz-build/testing
printf 'package fuzz\n\nimport _ "github.com/AdamKorcz/go-118-fuzz-build/testing"\n' >fuzz/register_ossfuzz.go

prepared=" "
# fuzzer builds one target: fuzzer <dir> <FuzzName>.
fuzzer() {
	local dir=$1 name=$2 f def
	if [[ $prepared != *" $dir "* ]]; then
		for f in "$dir"/*_test.go; do
			if grep -Eq '^package [A-Za-z0-9_]+_test$' "$f"; then
				rm "$f"
			else
				mv "$f" "${f%_test.go}_fuzzsupport.go"
			fi
		done
		prepared="$prepared$dir "
	fi
	def=$(grep -lE "^func $name\(" "$dir"/*.go)
	grep -rlw -- "$name" "$dir" | grep -vxF -- "$def" | while read -r f; do
		sed -i "s/\b$name\b/${name}_/g" "$f"
	done
	compile_native_go_fuzzer "github.com/toolconform/conform/$dir" "$name" "${dir//\//_}_$name"
}

# One line per target: fuzzer <package dir> <FuzzName>.
fuzzer agent FuzzExtractText
fuzzer cassettes FuzzImport
fuzzer cassettes FuzzRedactURL
fuzzer core FuzzBuffer
fuzzer core FuzzFromMCP
fuzzer core FuzzSanitize
fuzzer core FuzzValidate
fuzzer core/repair FuzzPreview
fuzzer core/repair FuzzRepair
fuzzer core/schema FuzzCompile
fuzzer fuzz FuzzDecodeCollect
fuzzer fuzz FuzzRecordedSplit
fuzzer fuzz FuzzStreamRoundTrip
fuzzer providers/anthropic FuzzDecodeRequest
fuzzer providers/anthropic FuzzDecodeResponse
fuzzer providers/anthropic FuzzDecodeStream
fuzzer providers/bedrock FuzzDecodeResponse
fuzzer providers/bedrock FuzzDecodeStream
fuzzer providers/cohere FuzzDecodeResponse
fuzzer providers/cohere FuzzDecodeStream
fuzzer providers/gemini FuzzDecodeInteractionStream
fuzzer providers/gemini FuzzDecodeResponse
fuzzer providers/gemini FuzzDecodeStream
fuzzer providers/gemini FuzzSanitizeSchema
fuzzer providers/internal/oaichat FuzzFastPath
fuzzer providers/internal/oaichat FuzzStrictSchema
fuzzer providers/internal/sse FuzzDecoder
fuzzer providers/mistral FuzzDecodeResponse
fuzzer providers/mistral FuzzDecodeStream
fuzzer providers/ollama FuzzDecodeResponse
fuzzer providers/ollama FuzzDecodeStream
fuzzer providers/internal/wire FuzzUnquoteRaw
fuzzer providers/openaichat FuzzDecodeResponse
fuzzer providers/openaichat FuzzDecodeStream
fuzzer providers/openairesponses FuzzDecodeRequest
fuzzer providers/openairesponses FuzzDecodeResponse
fuzzer providers/openairesponses FuzzDecodeStream
fuzzer record FuzzEscapeLabel
fuzzer scenarios FuzzParse
fuzzer serve FuzzHandler
