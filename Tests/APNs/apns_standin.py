#!/usr/bin/env python3
"""An APNs stand-in for Hail's push tests: HTTP/2 over TLS on loopback, with a throwaway certificate.

Started by the Swift tests (Tests/HailServerTests/APNsStandIn.swift) with Debian's python3-h2 and
python3-cryptography, which scripts/setup.sh installs. It

- writes into --dir: ca.pem (the certificate authority to trust), AuthKey_TEST.p8 (an APNs-style ES256 key
  for the server to sign provider tokens with) and nothing else the test needs;
- listens on 127.0.0.1 (port chosen by the system), speaks only h2 (ALPN), and prints `ready <port>` once;
- records every request as one JSON line in --log before it answers (and then prints `request <token>`): the connection number, the negotiated
  protocol, the path, every header in order, the body, and whether the JWT's ES256 signature verifies against
  the public half of AuthKey_TEST.p8 (with its decoded header and claims);
- exits when its standard input closes (or on SIGTERM);
- answers per device token from --script, a JSON object {token: [[status, reason], ...]} consumed in order;
  a token with nothing left (or not listed) is answered 200.
"""
import argparse
import base64
import datetime
import ipaddress
import json
import os
import signal
import socket
import ssl
import sys
import threading
import uuid

import h2.config
import h2.connection
import h2.events
from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from cryptography.x509.oid import NameOID


def write_credentials(directory):
    """A CA, a loopback server certificate it signs, and an APNs signing key; returns (cert, key, apns public)."""
    now = datetime.datetime.now(datetime.timezone.utc)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Hail test APNs CA")])
    ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name)
          .public_key(ca_key.public_key()).serial_number(x509.random_serial_number())
          .not_valid_before(now - datetime.timedelta(days=1)).not_valid_after(now + datetime.timedelta(days=2))
          .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
          .sign(ca_key, hashes.SHA256()))
    server_key = ec.generate_private_key(ec.SECP256R1())
    server = (x509.CertificateBuilder()
              .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")]))
              .issuer_name(ca_name).public_key(server_key.public_key()).serial_number(x509.random_serial_number())
              .not_valid_before(now - datetime.timedelta(days=1)).not_valid_after(now + datetime.timedelta(days=2))
              .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
                                                          x509.DNSName("localhost")]), critical=False)
              .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
              .sign(ca_key, hashes.SHA256()))
    pem = serialization.Encoding.PEM
    with open(os.path.join(directory, "ca.pem"), "wb") as f:
        f.write(ca.public_bytes(pem))
    with open(os.path.join(directory, "server.pem"), "wb") as f:
        f.write(server.public_bytes(pem))
    with open(os.path.join(directory, "server.key"), "wb") as f:
        f.write(server_key.private_bytes(pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    apns_key = ec.generate_private_key(ec.SECP256R1())
    with open(os.path.join(directory, "AuthKey_TEST.p8"), "wb") as f:
        f.write(apns_key.private_bytes(pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    return os.path.join(directory, "server.pem"), os.path.join(directory, "server.key"), apns_key.public_key()


def unbase64url(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def check_jwt(authorization, public_key):
    """(valid, header, claims) of `bearer <jwt>`, the signature checked as ES256 (raw r || s)."""
    if not authorization.startswith("bearer "):
        return False, None, None
    try:
        head, claims, signature = authorization[len("bearer "):].split(".")
        raw = unbase64url(signature)
        if len(raw) != 64:
            return False, None, None
        der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
        try:
            public_key.verify(der, (head + "." + claims).encode(), ec.ECDSA(hashes.SHA256()))
            valid = True
        except InvalidSignature:
            valid = False
        return valid, json.loads(unbase64url(head)), json.loads(unbase64url(claims))
    except (ValueError, json.JSONDecodeError):
        return False, None, None


class StandIn:
    def __init__(self, script, log_path, public_key):
        self.script = script
        self.log = open(log_path, "a", encoding="utf-8")
        self.public_key = public_key
        self.lock = threading.Lock()
        self.connections = 0

    def answer_for(self, token):
        with self.lock:
            queue = self.script.get(token) or []
            return queue.pop(0) if queue else [200, None]

    def record(self, token, entry):
        with self.lock:
            self.log.write(json.dumps(entry, sort_keys=True) + "\n")
            self.log.flush()
            # One line per request on stdout, after the log has it: the test waits on these, never on time.
            print("request %s" % token, flush=True)

    def serve(self, tls_socket):
        with self.lock:
            self.connections += 1
            number = self.connections
        protocol = tls_socket.selected_alpn_protocol()
        connection = h2.connection.H2Connection(
            config=h2.config.H2Configuration(client_side=False, header_encoding="utf-8"))
        connection.initiate_connection()
        tls_socket.sendall(connection.data_to_send())
        streams = {}
        try:
            while True:
                data = tls_socket.recv(65536)
                if not data:
                    return
                for event in connection.receive_data(data):
                    if isinstance(event, h2.events.RequestReceived):
                        streams[event.stream_id] = {"headers": list(event.headers), "body": b""}
                    elif isinstance(event, h2.events.DataReceived):
                        streams[event.stream_id]["body"] += event.data
                        connection.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
                    elif isinstance(event, h2.events.StreamEnded):
                        self.respond(connection, event.stream_id, streams.pop(event.stream_id), number, protocol)
                    elif isinstance(event, h2.events.ConnectionTerminated):
                        return
                tls_socket.sendall(connection.data_to_send())
        except (OSError, ssl.SSLError):
            return

    def respond(self, connection, stream_id, request, number, protocol):
        headers = request["headers"]
        fields = dict(headers)
        path = fields.get(":path", "")
        token = path.rsplit("/", 1)[-1]
        valid, jwt_header, jwt_claims = check_jwt(fields.get("authorization", ""), self.public_key)
        status, reason = self.answer_for(token)
        self.record(token, {
            "connection": number, "protocol": protocol, "path": path, "token": token,
            "headers": [[name, value] for name, value in headers],
            "body": request["body"].decode("utf-8", "replace"),
            "jwtValid": valid, "jwtHeader": jwt_header, "jwtClaims": jwt_claims,
            "status": status, "reason": reason,
        })
        body = json.dumps({"reason": reason}).encode() if reason else b""
        response = [(":status", str(status)), ("apns-id", str(uuid.uuid4()).upper())]
        if body:
            response += [("content-type", "application/json"), ("content-length", str(len(body)))]
        connection.send_headers(stream_id, response, end_stream=not body)
        if body:
            connection.send_data(stream_id, body, end_stream=True)


def exit_when_stdin_closes():
    """The test closes our stdin to stop us: a signal might be blocked, since we inherit the test's mask."""
    sys.stdin.buffer.read()
    os._exit(0)


def main():
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM, signal.SIGINT])
    threading.Thread(target=exit_when_stdin_closes, daemon=True).start()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", required=True)
    parser.add_argument("--log", required=True)
    parser.add_argument("--script", default="{}")
    arguments = parser.parse_args()
    certificate, key, public_key = write_credentials(arguments.dir)
    stand_in = StandIn(json.loads(arguments.script), arguments.log, public_key)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(certificate, key)
    context.set_alpn_protocols(["h2"])
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    print("ready %d" % listener.getsockname()[1], flush=True)
    while True:
        client, _ = listener.accept()
        try:
            tls = context.wrap_socket(client, server_side=True)
        except (OSError, ssl.SSLError):
            client.close()
            continue
        threading.Thread(target=stand_in.serve, args=(tls,), daemon=True).start()


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        sys.exit(0)
