"""Runs awsdocs/aws-doc-sdk-examples' Bedrock Runtime Converse examples,
unchanged, against the loopback server (boto3 reads the endpoint from
AWS_ENDPOINT_URL_BEDROCK_RUNTIME); the PDF they read is replaced by a tiny
valid one. Writes each body to OUT/awsdocs-<name>.json."""
import os, subprocess, sys
sys.path.insert(0, os.path.dirname(__file__))
import server

SRC, OUT = sys.argv[1], sys.argv[2]
srv, port = server.start()
work = os.path.join(OUT, "_work")
os.makedirs(os.path.join(work, "example-data"), exist_ok=True)
with open(os.path.join(work, "example-data", "amazon-nova-service-cards.pdf"), "wb") as f:
    f.write(b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj 2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n")
env = dict(os.environ, AWS_ENDPOINT_URL_BEDROCK_RUNTIME=f"http://127.0.0.1:{port}", AWS_ACCESS_KEY_ID="AKIDLOOPBACK",
           AWS_SECRET_ACCESS_KEY="loopback-secret", AWS_DEFAULT_REGION="us-east-1", AWS_MAX_ATTEMPTS="1")
for rel in sys.argv[3:]:
    name = "awsdocs-" + rel.replace("models/", "").replace("/", "-").replace("_", "-").removesuffix(".py")
    r = subprocess.run([sys.executable, os.path.join(SRC, rel)], cwd=work, env=env, capture_output=True, text=True, timeout=60)
    if len(server.RECORDS) != 1:
        print(name, "records:", len(server.RECORDS), r.stdout[-300:], r.stderr[-500:])
        server.RECORDS.clear()
        continue
    rec = server.RECORDS.pop()
    with open(os.path.join(OUT, name + ".json"), "wb") as f:
        f.write(rec["body"])
    with open(os.path.join(OUT, name + ".url"), "w") as f:
        f.write(rec["path"] + "\n")
    print(name, rec["path"])
