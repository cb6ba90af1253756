"""Keyward's gRPC API from Python: creates an api and a key with 3 credits, verifies the key until USAGE_EXCEEDED,
shows an authentication failure and asks the health service.

Generate the stubs first (npm run generate:clients), then:

    PYTHONPATH=dist/clients/python KEYWARD_ROOT_KEY=kw_root_... python3 examples/python/example.py [host:port]
"""
import os
import sys

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from keyward.v1 import apis_pb2, apis_pb2_grpc, keys_pb2, keys_pb2_grpc

address = sys.argv[1] if len(sys.argv) > 1 else "127.0.0.1:8080"
root_key = os.environ.get("KEYWARD_ROOT_KEY")
if not root_key:
    sys.exit("set KEYWARD_ROOT_KEY to a root key with api.*.create_api, api.*.create_key and api.*.verify_key")

# Every call except VerifyKeyV1 and Liveness authenticates with the root key as Bearer metadata.
auth = (("authorization", "Bearer " + root_key),)

# Plaintext HTTP/2 (h2c), as Keyward listens by default; use grpc.secure_channel behind TLS.
with grpc.insecure_channel(address) as channel:
    apis = apis_pb2_grpc.ApisServiceStub(channel)
    keys = keys_pb2_grpc.KeysServiceStub(channel)

    api = apis.CreateApi(apis_pb2.CreateApiRequest(name="python-example"), metadata=auth, timeout=10)
    print(f"api created: {str(bool(api.api_id)).lower()}")

    key = keys.CreateKey(
        keys_pb2.CreateKeyRequest(api_id=api.api_id, credits=keys_pb2.Credits(remaining=3)), metadata=auth, timeout=10
    )
    print(f"key created: {str(bool(key.key)).lower()}")

    # Each VALID verification spends one credit; a denied one spends nothing.
    attempt = 0
    while True:
        attempt += 1
        answer = keys.VerifyKey(keys_pb2.VerifyKeyRequest(key=key.key), metadata=auth, timeout=10)
        print(f"verify {attempt}: {answer.code} credits={answer.credits}")
        if not answer.valid:
            break

    try:
        apis.CreateApi(
            apis_pb2.CreateApiRequest(name="never-created"),
            metadata=(("authorization", "Bearer kw_root_not_a_real_key"),),
            timeout=10,
        )
    except grpc.RpcError as error:
        print(f"wrong root key: {error.code().name}")

    health = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=10)
    print(f"health: {health_pb2.HealthCheckResponse.ServingStatus.Name(health.status)}")
