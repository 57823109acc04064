#!/bin/bash -eu
# Builds every native Go fuzz target of conform as a libFuzzer binary in
# $OUT, inside the ClusterFuzzLite (OSS-Fuzz) builder image. See
# docs/fuzzing.md; scripts/ossfuzz-local runs this script unchanged outside
# Docker. The list of targets at the end must match the tree; `scripts/fuzz
# -check`, run by .ci/run, compares the two.
#
# compile_native_go_fuzzer hands the target's package to go-118-fuzz-build,
# which builds it as ordinary (non-test) code and replaces the "testing"
# import of the target's file, and of that file only, with its stand-in
# package github.com/AdamKorcz/go-118-fuzz-build/testing (its F, T, Short;
# no TB, no B). This script edits the copy of the source inside the container
# so that the targets build that way:
#   - the stand-in package is added to go.mod;
#   - in each package with targets, external test files (package x_test)
#     are removed and the other _test.go files become ordinary files, so
#     that a target can use helpers from its package's other test files;
#   - their command-line flags are renamed <dir>.<flag>, since several
#     define -update and a binary that links two of them panics at start;
#   - in those files, and in the ordinary helper packages that import
#     testing (providers/internal/adaptertest), testing.TB becomes
#     ossfuzzTB and a helper's *testing.F becomes ossfuzzF: interfaces of
#     the methods that the standard types and the stand-ins have in common,
#     so that a helper accepts the stand-ins too;
#   - in the target's file, while its target builds, everything outside the
#     target function keeps the standard library's testing (imported as
#     stdtesting), so that the file's tests and benchmarks still compile;
#   - other mentions of a target's name in its directory become Fuzz_Name,
#     because compile_native_go_fuzzer finds the target's file with a
#     substring grep -rl and, for coverage builds, needs exactly one file;
#   - a target's regression seeds (testdata/fuzz/<FuzzName>/) become its
#     seed corpus, $OUT/<fuzzer>_seed_corpus.zip (see seeds below);
#   - each target is built from inside its package directory, because
#     go-118-fuzz-build writes its main package in the current directory and
#     a package under internal/ may be imported only from within its parent.
cd "$SRC/conform"

go get github.com/AdamKorcz/go-118-fuzz-build/testing
printf 'package fuzz\n\nimport _ "github.com/AdamKorcz/go-118-fuzz-build/testing"\n' >fuzz/register_ossfuzz.go

# types writes, once per package directory, the interfaces that stand for
# testing.TB and *testing.F in this build: the methods that the standard
# library's types and go-118-fuzz-build's stand-ins have in common, so that
# a helper taking one of them accepts both.
types() {
	local dir=$1 pkg
	[ ! -e "$dir/ossfuzz_types_fuzzsupport.go" ] || return 0
	pkg=$(go list -f '{{.Name}}' "./$dir")
	cat >"$dir/ossfuzz_types_fuzzsupport.go" <<EOF
package $pkg

// ossfuzzTB stands for testing.TB in the OSS-Fuzz build (.clusterfuzzlite/build.sh).
type ossfuzzTB = interface {
	Cleanup(func())
	Error(...any)
	Errorf(string, ...any)
	Fail()
	FailNow()
	Failed() bool
	Fatal(...any)
	Fatalf(string, ...any)
	Helper()
	Log(...any)
	Logf(string, ...any)
	Name() string
	Setenv(string, string)
	Skip(...any)
	SkipNow()
	Skipf(string, ...any)
	Skipped() bool
	TempDir() string
}

// ossfuzzF stands for *testing.F in helpers, in the OSS-Fuzz build.
type ossfuzzF = interface {
	ossfuzzTB
	Add(...any)
}
EOF
}

# loosen makes the helpers of one file take ossfuzzTB and ossfuzzF instead of
# testing.TB and *testing.F; the fuzz targets' own signatures stay.
loosen() {
	local file=$1
	sed -i -e 's/\btesting\.TB\b/ossfuzzTB/g' \
		-e '/^func Fuzz[A-Za-z0-9_]*([A-Za-z0-9_]* \*testing\.F)/!s/\*testing\.F\b/ossfuzzF/g' "$file"
	if ! grep -q '\btesting\.' "$file"; then
		sed -i '/^[[:space:]]*"testing"$/d; /^import "testing"$/d' "$file"
	fi
	types "$(dirname "$file")"
}

# Helper packages (ordinary code that imports testing, such as
# providers/internal/adaptertest) are loosened wherever they take testing.TB
# or *testing.F.
grep -rl --include='*.go' --exclude='*_test.go' --exclude-dir=bench --exclude-dir=testdata \
	-e '\btesting\.TB\b' -e '\*testing\.F\b' . | while read -r f; do
	loosen "$f"
done

# prepare turns the test files of one package directory into ordinary files.
prepare() {
	local dir=$1 f g
	for f in "$dir"/*_test.go; do
		if grep -Eq '^package [A-Za-z0-9_]+_test$' "$f"; then
			rm "$f"
			continue
		fi
		g=${f%_test.go}_fuzzsupport.go
		mv "$f" "$g"
		loosen "$g"
		# Command-line flags of test files (-update) get a name of their
		# package's own: two packages defining -update in one binary panic
		# at start-up ("flag redefined").
		sed -i "s/\bflag\.\(Bool\|String\|Int\|Int64\|Uint\|Uint64\|Float64\|Duration\)(\"/flag.\1(\"${dir//\//.}./g" "$g"
	done
}

# isolate makes the target function <name> the only code of <file> that
# go-118-fuzz-build's stand-in reaches: the rest of the file uses the standard
# testing package under the name stdtesting, which go-118-fuzz-build leaves
# alone (it replaces the unnamed "testing" import only).
isolate() {
	local file=$1 name=$2 start end
	start=$(grep -n "^func $name(" "$file" | cut -d: -f1)
	end=$(awk -v s="$start" 'NR > s && /^}/ { print NR; exit }' "$file")
	if [ -z "$start" ] || [ -z "$end" ]; then
		echo "build.sh: cannot find the body of $name in $file" >&2
		exit 1
	fi
	sed -i "1,$((start - 1)) s/\btesting\./stdtesting./g; $((end + 1)),\$ s/\btesting\./stdtesting./g" "$file"
	if grep -q '\bstdtesting\.' "$file"; then
		sed -i 's/^\([[:space:]]*\)"testing"$/\1stdtesting "testing"/; s/^import "testing"$/import stdtesting "testing"/' "$file"
	fi
}

# seeds writes $OUT/<fuzzer>_seed_corpus.zip, the corpus ClusterFuzzLite
# starts from, out of the target's regression seeds in testdata/fuzz/<name>/
# ("go test fuzz v1" files). The libFuzzer binary does not read those files:
# go-118-fuzz-build's F.Fuzz draws each argument from the input with
# github.com/AdaLogics/go-fuzz-headers, so each value is written the way it is
# read back: []byte and string as a 4-byte big-endian length and the bytes;
# bool as one byte (even is true); 8-bit integers as one byte; 16- and 64-bit
# integers as big-endian bytes and a byte 1 (odd: big-endian); 32-bit ones as
# 4 big-endian bytes. A file with any other type is left out, and counted.
# The f.Add seeds, in code, cannot be converted here.
seeds() {
	local dir=$1 name=$2 fuzzer=$3
	[ -d "$dir/testdata/fuzz/$name" ] || return 0
	python3 - "$dir/testdata/fuzz/$name" "$OUT/${fuzzer}_seed_corpus.zip" <<'EOF'
import os, re, struct, sys, zipfile

ESC = {"a": 7, "b": 8, "f": 12, "n": 10, "r": 13, "t": 9, "v": 11, "\\": 92, "'": 39, '"': 34}

def unquote(lit):
    """Returns the bytes of a Go string or rune literal."""
    if lit[0] == "`":
        return lit[1:-1].replace("\r", "").encode("utf-8", "surrogateescape")
    body, out, i = lit[1:-1], bytearray(), 0
    while i < len(body):
        c = body[i]
        if c != "\\":
            out += c.encode("utf-8", "surrogateescape")
            i += 1
            continue
        e = body[i + 1]
        if e in ESC:
            out.append(ESC[e])
            i += 2
        elif e == "x":
            out.append(int(body[i + 2:i + 4], 16))
            i += 4
        elif e in "uU":
            n = 4 if e == "u" else 8
            out += chr(int(body[i + 2:i + 2 + n], 16)).encode("utf-8")
            i += 2 + n
        elif e in "01234567":
            out.append(int(body[i + 1:i + 4], 8))
            i += 4
        else:
            raise ValueError("unknown escape \\" + e)
    return bytes(out)

def number(lit, bits):
    if lit[0] == "'":
        v = unquote(lit).decode("utf-8", "surrogateescape")
        v = ord(v) if len(v) == 1 else int.from_bytes(unquote(lit), "big")
    else:
        v = int(lit.replace("_", ""), 0)
    return v & ((1 << bits) - 1)

def encode(typ, lit):
    if typ in ("[]byte", "string"):
        b = unquote(lit)
        return struct.pack(">I", len(b)) + b
    if typ == "bool":
        return b"\x00" if lit == "true" else b"\x01"
    if typ in ("byte", "uint8", "int8"):
        return bytes([number(lit, 8)])
    if typ in ("uint16", "int16"):
        return struct.pack(">H", number(lit, 16)) + b"\x01"
    if typ in ("uint32", "int32"):
        return struct.pack(">I", number(lit, 32))
    if typ in ("int", "int64", "uint", "uint64"):
        return struct.pack(">Q", number(lit, 64)) + b"\x01"
    raise ValueError("type " + typ + " is not converted")

src, dst = sys.argv[1], sys.argv[2]
kept, skipped = 0, []
with zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as z:
    for name in sorted(os.listdir(src)):
        with open(os.path.join(src, name), "rb") as f:
            lines = f.read().decode("utf-8", "surrogateescape").splitlines()
        try:
            if not lines or lines[0].strip() != "go test fuzz v1":
                raise ValueError("no go test fuzz v1 header")
            data = b""
            for line in lines[1:]:
                line = line.strip()
                if not line:
                    continue
                m = re.fullmatch(r"([][A-Za-z0-9]+)\((.*)\)", line)
                if not m:
                    raise ValueError("cannot read " + repr(line[:40]))
                data += encode(m.group(1), m.group(2))
        except (ValueError, IndexError) as e:
            skipped.append("%s (%s)" % (name, e))
            continue
        z.writestr(name, data)
        kept += 1
print("seeds: %s: %d seeds in %s, %d left out%s" % (src, kept, dst, len(skipped),
      "".join("\n  " + s for s in skipped)))
EOF
}

prepared=" "
# fuzzer builds one target: fuzzer <dir> <FuzzName>.
fuzzer() {
	local dir=$1 name=$2 def f n
	if [[ $prepared != *" $dir "* ]]; then
		prepare "$dir"
		prepared="$prepared$dir "
	fi
	def=$(grep -lE "^func $name\(" "$dir"/*.go)
	grep -rlw --include='*.go' -- "$name" "$dir" | grep -vxF -- "$def" | while read -r f; do
		sed -i "s/\b$name\b/Fuzz_${name#Fuzz}/g" "$f"
	done
	n=$(grep -rl --include='*.go' -- "$name" "$dir" | wc -l)
	if [ "$n" -ne 1 ]; then
		echo "build.sh: $dir: $name is still named in $n .go files:" >&2
		grep -rl --include='*.go' -- "$name" "$dir" >&2
		exit 1
	fi
	seeds "$dir" "$name" "${dir//\//_}_$name"
	cp "$def" "$def.orig"
	isolate "$def" "$name"
	(cd "$dir" && compile_native_go_fuzzer "github.com/toolconform/conform/$dir" "$name" "${dir//\//_}_$name")
	mv "$def.orig" "$def"
}

# One line per target: fuzzer <package dir> <FuzzName>.
fuzzer agent FuzzExtractText
fuzzer cassettes FuzzImport
fuzzer cassettes FuzzRedactURL
fuzzer cassettes FuzzImportPlantedSecret
fuzzer cassettes FuzzRedactPlacements
fuzzer core FuzzBuffer
fuzzer core FuzzBufferSplice
fuzzer core FuzzCollectMatchesBuffer
fuzzer core/internal/jsonvalid FuzzValid
fuzzer core/repair FuzzPreview
fuzzer core/repair FuzzRepair
fuzzer core/repair FuzzRepairDeep
fuzzer fuzz FuzzDecodeCollect
fuzzer fuzz FuzzRecordedSplit
fuzzer fuzz FuzzStreamRoundTrip
fuzzer providers/anthropic FuzzDecodeRequest
fuzzer providers/anthropic FuzzDecodeResponse
fuzzer providers/anthropic FuzzDecodeStream
fuzzer providers/anthropic FuzzFastPath
fuzzer providers/bedrock FuzzDecodeResponse
fuzzer providers/bedrock FuzzDecodeStream
fuzzer providers/bedrock FuzzFastPath
fuzzer providers/cohere FuzzDecodeResponse
fuzzer providers/cohere FuzzDecodeStream
fuzzer providers/cohere FuzzFastPath
fuzzer providers/gemini FuzzArgTree
fuzzer providers/gemini FuzzArrayForm
fuzzer providers/gemini FuzzDecodeInteractionStream
fuzzer providers/gemini FuzzDecodeResponse
fuzzer providers/gemini FuzzDecodeStream
fuzzer providers/gemini FuzzFastPath
fuzzer providers/gemini FuzzInteractFastPath
fuzzer providers/gemini FuzzSanitizeSchema
fuzzer providers/internal/jsonscan FuzzScanner
fuzzer providers/internal/oaichat FuzzFastPath
fuzzer providers/internal/oaichat FuzzStrictSchema
fuzzer providers/mistral FuzzDecodeResponse
fuzzer providers/mistral FuzzDecodeStream
fuzzer providers/ollama FuzzDecodeResponse
fuzzer providers/ollama FuzzDecodeStream
fuzzer providers/ollama FuzzFastPath
fuzzer providers/internal/rules FuzzInputConflict
fuzzer providers/internal/jsonstr FuzzUnquoteRaw
fuzzer providers/openaichat FuzzDecodeResponse
fuzzer providers/openaichat FuzzDecodeStream
fuzzer providers/openairesponses FuzzDecodeRequest
fuzzer providers/openairesponses FuzzDecodeResponse
fuzzer providers/openairesponses FuzzDecodeStream
fuzzer providers/openairesponses FuzzFastPath
fuzzer record FuzzEscapeLabel
fuzzer reduce FuzzSimplify
fuzzer scenarios FuzzParse
fuzzer serve FuzzGradeBody
fuzzer serve FuzzHandler
fuzzer sse FuzzDecoder
fuzzer textcalls FuzzHermes
fuzzer textcalls FuzzThink
fuzzer textcalls FuzzQwen3Coder
fuzzer textcalls FuzzGLM45
fuzzer textcalls FuzzGLM47
fuzzer textcalls FuzzDeepSeekV3
fuzzer textcalls FuzzDeepSeekV31
fuzzer textcalls FuzzDeepSeekV32
fuzzer textcalls FuzzKimiK2
fuzzer textcalls FuzzMistralV3
fuzzer textcalls FuzzMistralV11
fuzzer textcalls FuzzGranite
fuzzer textcalls FuzzPhi4Mini
fuzzer textcalls FuzzLlama3JSON
fuzzer textcalls FuzzBareJSON
fuzzer textcalls FuzzJSONList
fuzzer textcalls FuzzMiniMaxM2
fuzzer textcalls FuzzPythonic
fuzzer textcalls FuzzLlama4Pythonic
fuzzer textcalls FuzzLFM2
fuzzer textcalls FuzzOLMo3
fuzzer textcalls FuzzHarmony
fuzzer textcalls FuzzGemma4
fuzzer textcalls FuzzFunctionGemma
fuzzer textcalls FuzzSeedOSS
fuzzer textcalls FuzzCohereCommand
fuzzer tools FuzzFromMCP
fuzzer tools FuzzSanitize
fuzzer tools FuzzValidate
fuzzer tools/names FuzzMap
fuzzer tools/schema FuzzCompile
fuzzer tools/schema FuzzDecodeDeep
