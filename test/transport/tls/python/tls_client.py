"""Keyward over TLS with Python grpcio: one authenticated call and a health check on a channel made with
grpc.ssl_channel_credentials; prints what it observed as one JSON object (errors as their status code name).

Usage: python3 tls_client.py HOST:PORT ROOT_KEY CA_FILE [CLIENT_CERT_FILE CLIENT_KEY_FILE]
       (stubs from `npm run generate:clients` on PYTHONPATH)
"""
import json
import sys

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from keyward.v1 import apis_pb2, apis_pb2_grpc

address, root_key, ca_file = sys.argv[1], sys.argv[2], sys.argv[3]
client = sys.argv[4:6]


def read(path):
    with open(path, "rb") as f:
        return f.read()


credentials = grpc.ssl_channel_credentials(
    root_certificates=read(ca_file),
    private_key=read(client[1]) if client else None,
    certificate_chain=read(client[0]) if client else None,
)
observed = {}
with grpc.secure_channel(address, credentials) as channel:
    try:
        api = apis_pb2_grpc.ApisServiceStub(channel).CreateApi(
            apis_pb2.CreateApiRequest(name="python-over-tls"), metadata=(("authorization", "Bearer " + root_key),), timeout=10
        )
        observed["createApi"] = api.api_id[:4]
        health = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=10)
        observed["health"] = health_pb2.HealthCheckResponse.ServingStatus.Name(health.status)
    except grpc.RpcError as error:
        observed["error"] = error.code().name

print(json.dumps(observed))
