// Command example walks through Keyward's gRPC API from Go: it creates an api and a key with 3 credits, verifies
// the key until USAGE_EXCEEDED, shows an authentication failure and asks the health service.
//
// Generate the stubs first (npm run generate:clients), then see docs/clients.md for how to build it.
//
//	KEYWARD_ROOT_KEY=kw_root_... go run . [host:port]
package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"time"

	"google.golang.org/grpc"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	keywardv1 "keyward.dev/gen/go/keyward/v1"
)

func main() {
	address := "127.0.0.1:8080"
	if len(os.Args) > 1 {
		address = os.Args[1]
	}
	rootKey := os.Getenv("KEYWARD_ROOT_KEY")
	if rootKey == "" {
		log.Fatal("set KEYWARD_ROOT_KEY to a root key with api.*.create_api, api.*.create_key and api.*.verify_key")
	}

	// Plaintext HTTP/2 (h2c), as Keyward listens by default; use credentials.NewTLS behind TLS. WithInsecure is
	// deprecated in newer grpc-go but, unlike credentials/insecure (grpc-go >= 1.34), builds with Debian 12's 1.33.
	conn, err := grpc.Dial(address, grpc.WithInsecure())
	if err != nil {
		log.Fatalf("dial %s: %v", address, err)
	}
	defer conn.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// Every call except VerifyKeyV1 and Liveness authenticates with the root key as Bearer metadata.
	authed := metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+rootKey)

	apis := keywardv1.NewApisServiceClient(conn)
	keys := keywardv1.NewKeysServiceClient(conn)

	api, err := apis.CreateApi(authed, &keywardv1.CreateApiRequest{Name: "go-example"})
	if err != nil {
		log.Fatalf("CreateApi: %v", err)
	}
	fmt.Printf("api created: %t\n", len(api.ApiId) > 0)

	remaining := int64(3)
	key, err := keys.CreateKey(authed, &keywardv1.CreateKeyRequest{
		ApiId:   api.ApiId,
		Credits: &keywardv1.Credits{Remaining: &remaining},
	})
	if err != nil {
		log.Fatalf("CreateKey: %v", err)
	}
	fmt.Printf("key created: %t\n", len(key.Key) > 0)

	// Each VALID verification spends one credit; a denied one spends nothing.
	for attempt := 1; ; attempt++ {
		answer, err := keys.VerifyKey(authed, &keywardv1.VerifyKeyRequest{Key: key.Key})
		if err != nil {
			log.Fatalf("VerifyKey: %v", err)
		}
		fmt.Printf("verify %d: %s credits=%d\n", attempt, answer.Code, answer.GetCredits())
		if !answer.Valid {
			break
		}
	}

	wrong := metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer kw_root_not_a_real_key")
	_, err = apis.CreateApi(wrong, &keywardv1.CreateApiRequest{Name: "never-created"})
	fmt.Printf("wrong root key: %s\n", status.Code(err))

	health, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{})
	if err != nil {
		log.Fatalf("health: %v", err)
	}
	fmt.Printf("health: %s\n", health.Status)
}
