module keyward.dev/examples/go

go 1.19

// The stubs from `npm run generate:clients`; `go mod tidy` adds grpc and protobuf (see docs/clients.md).
replace keyward.dev/gen/go => ../../dist/clients/go
