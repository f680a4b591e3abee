module zenhack.net/go/util

go 1.21
