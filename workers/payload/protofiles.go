package payload

import (
	"embed"
	"fmt"
	"path"
)

// protoFiles are the .proto files workers/payload/pb is generated from.
//
//go:embed proto/*.proto
var protoFiles embed.FS

// ProtoFile returns the text of the .proto file a built-in message was compiled
// from, by its descriptor's path (business.proto): what a registry codec
// registers.
func ProtoFile(name string) (string, error) {
	b, err := protoFiles.ReadFile(path.Join("proto", name))
	if err != nil {
		return "", fmt.Errorf("no built-in .proto file %q: %w", name, err)
	}
	return string(b), nil
}
