"""Keyward interop with Python grpcio: runs the scenario and prints what it observed as one JSON object.

Usage: python3 interop.py HOST:PORT ROOT_KEY   (stubs from `npm run generate:clients` on PYTHONPATH)
"""
import json
import sys

import grpc
from google.rpc import error_details_pb2, status_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from keyward.v1 import apis_pb2, apis_pb2_grpc, keys_pb2, keys_pb2_grpc

address, root_key = sys.argv[1], sys.argv[2]
auth = (("authorization", "Bearer " + root_key),)
observed = {}

with grpc.insecure_channel(address) as channel:
    apis = apis_pb2_grpc.ApisServiceStub(channel)
    keys = keys_pb2_grpc.KeysServiceStub(channel)

    api = apis.CreateApi(apis_pb2.CreateApiRequest(name="python-api"), metadata=auth)
    created = keys.CreateKey(
        keys_pb2.CreateKeyRequest(
            api_id=api.api_id,
            credits=keys_pb2.Credits(remaining=2),
            ratelimits=[keys_pb2.RatelimitConfig(name="requests", limit=100, duration=60000, auto_apply=True)],
        ),
        metadata=auth,
    )
    codes = []
    for _ in range(3):
        answer = keys.VerifyKey(keys_pb2.VerifyKeyRequest(key=created.key), metadata=auth)
        codes.append([answer.code, answer.credits])
    observed["verifications"] = codes

    try:
        apis.CreateApi(apis_pb2.CreateApiRequest(name="anonymous"))
    except grpc.RpcError as error:
        observed["unauthenticated"] = error.code().name

    try:
        apis.CreateApi(apis_pb2.CreateApiRequest(name="ab"), metadata=auth)
    except grpc.RpcError as error:
        details = dict(error.trailing_metadata()).get("grpc-status-details-bin")
        status = status_pb2.Status.FromString(details)
        bad_request = error_details_pb2.BadRequest()
        status.details[0].Unpack(bad_request)
        observed["invalid"] = {
            "code": error.code().name,
            "message": error.details(),
            "fields": [v.field for v in bad_request.field_violations],
        }

    # A 1 us deadline: grpcio checks it on a timer, so on a busy machine an answer can now and then beat it. A few
    # tries, the first refusal's code kept.
    for _ in range(5):
        try:
            apis.CreateApi(apis_pb2.CreateApiRequest(name="too-late"), metadata=auth, timeout=0.000001)
        except grpc.RpcError as error:
            observed["deadline"] = error.code().name
            break

    gzipped = apis.CreateApi(apis_pb2.CreateApiRequest(name="gzip-api"), metadata=auth, compression=grpc.Compression.Gzip)
    observed["gzip"] = gzipped.api_id.startswith("api_")

    # grpc.health.v1 through the stubs generate:clients writes as grpc_health.v1 (a `grpc/` package would shadow grpcio).
    health = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest())
    observed["health"] = health_pb2.HealthCheckResponse.ServingStatus.Name(health.status)

print(json.dumps(observed))
