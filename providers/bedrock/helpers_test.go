package bedrock

import (
	"hash/crc32"
	"strconv"
)

func itoa(i int) string { return strconv.Itoa(i) }

func crc32IEEE(b []byte) uint32 { return crc32.ChecksumIEEE(b) }
