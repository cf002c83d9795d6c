//! The same exchange against Node's own crypto (ECDH, HKDF, AES-GCM, ECDSA), an implementation
//! that shares nothing with this crate: Node verifies our VAPID header and reads our PEM,
//! decrypts our body; we verify Node's header, read Node's PEM and decrypt Node's body.
//! Skipped, with a note, where `node` is not installed.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::io::Write;
use std::process::{Command, Stdio};

use koder_web_push::{encrypt, verify_vapid, Receiver, SubscriptionKeys, VapidKey};
use serde_json::{json, Value};

/// RFC 8291 written in Node from the RFC's steps, with both roles: `encrypt` as an application
/// server, `decrypt` as a browser.
const NODE_WEB_PUSH: &str = r#"
const crypto = require('crypto');
const b64 = (b) => Buffer.from(b).toString('base64url');
const unb64 = (s) => Buffer.from(s, 'base64url');
function contentKeys(shared, auth, uaPublic, asPublic, salt) {
  const info = Buffer.concat([Buffer.from('WebPush: info\0'), uaPublic, asPublic]);
  const ikm = Buffer.from(crypto.hkdfSync('sha256', shared, auth, info, 32));
  const cek = Buffer.from(crypto.hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16));
  const nonce = Buffer.from(crypto.hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12));
  return { cek, nonce };
}
function encrypt(p256dh, auth, plaintext) {
  const uaPublic = unb64(p256dh);
  const sender = crypto.createECDH('prime256v1');
  const asPublic = sender.generateKeys();
  const salt = crypto.randomBytes(16);
  const { cek, nonce } = contentKeys(sender.computeSecret(uaPublic), unb64(auth), uaPublic, asPublic, salt);
  const cipher = crypto.createCipheriv('aes-128-gcm', cek, nonce);
  const sealed = Buffer.concat([cipher.update(Buffer.concat([plaintext, Buffer.from([2])])), cipher.final(), cipher.getAuthTag()]);
  const rs = Buffer.alloc(4); rs.writeUInt32BE(4096);
  return Buffer.concat([salt, rs, Buffer.from([asPublic.length]), asPublic, sealed]);
}
function decrypt(receiver, auth, body) {
  const salt = body.subarray(0, 16), idlen = body[20];
  const asPublic = body.subarray(21, 21 + idlen), sealed = body.subarray(21 + idlen);
  const { cek, nonce } = contentKeys(receiver.computeSecret(asPublic), auth, receiver.getPublicKey(), asPublic, salt);
  const decipher = crypto.createDecipheriv('aes-128-gcm', cek, nonce);
  decipher.setAuthTag(sealed.subarray(sealed.length - 16));
  const record = Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - 16)), decipher.final()]);
  let end = record.length - 1;
  while (end >= 0 && record[end] === 0) end--;
  if (record[end] !== 2) throw new Error('no last-record delimiter');
  return record.subarray(0, end);
}
function publicKeyFromPoint(point) {
  const p = unb64(point);
  return crypto.createPublicKey({ format: 'jwk', key: { kty: 'EC', crv: 'P-256', x: b64(p.subarray(1, 33)), y: b64(p.subarray(33)) } });
}
"#;

/// Round one: Node checks what we made and makes its own for us to check.
const NODE_ROUND_ONE: &str = r#"
const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const [, token, k] = input.authorization.match(/^vapid t=([^,]+), k=(.+)$/);
const [h, c, s] = token.split('.');
const signatureValid = crypto.verify('sha256', Buffer.from(h + '.' + c), { key: publicKeyFromPoint(k), dsaEncoding: 'ieee-p1363' }, unb64(s));
const ourJwk = crypto.createPrivateKey(input.pem).export({ format: 'jwk' });
const ourPemPublic = b64(Buffer.concat([Buffer.from([4]), unb64(ourJwk.x), unb64(ourJwk.y)]));

const { privateKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
const jwk = privateKey.export({ format: 'jwk' });
const nodeKey = b64(Buffer.concat([Buffer.from([4]), unb64(jwk.x), unb64(jwk.y)]));
const nodeInput = b64(JSON.stringify({ typ: 'JWT', alg: 'ES256' })) + '.' + b64(JSON.stringify({ aud: 'https://push.example.net', exp: 1900000000, sub: 'mailto:node@example.com' }));
const nodeSignature = crypto.sign('sha256', Buffer.from(nodeInput), { key: privateKey, dsaEncoding: 'ieee-p1363' });

const receiver = crypto.createECDH('prime256v1');
receiver.generateKeys();
const receiverAuth = crypto.randomBytes(16);
console.log(JSON.stringify({
  signatureValid,
  claims: JSON.parse(unb64(c).toString()),
  ourPemPublic,
  nodePem: privateKey.export({ format: 'pem', type: 'pkcs8' }),
  nodePublic: nodeKey,
  nodeAuthorization: 'vapid t=' + nodeInput + '.' + b64(nodeSignature) + ', k=' + nodeKey,
  bodyForUs: b64(encrypt(input.p256dh, input.auth, Buffer.from(input.message))),
  receiverPrivate: b64(receiver.getPrivateKey()),
  receiverPublic: b64(receiver.getPublicKey()),
  receiverAuth: b64(receiverAuth),
}));
"#;

/// Round two: Node, as the browser, decrypts what we encrypted for it.
const NODE_ROUND_TWO: &str = r#"
const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const receiver = crypto.createECDH('prime256v1');
receiver.setPrivateKey(unb64(input.receiverPrivate));
console.log(JSON.stringify({ message: decrypt(receiver, unb64(input.receiverAuth), unb64(input.body)).toString() }));
"#;

fn node_available() -> bool {
    Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|output| output.status.success())
}

fn run_node(script: &str, input: &Value) -> Value {
    let mut child = Command::new("node")
        .args(["-e", &format!("{NODE_WEB_PUSH}\n{script}")])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.to_string().as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "node failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

fn text<'a>(value: &'a Value, field: &str) -> &'a str {
    value[field]
        .as_str()
        .unwrap_or_else(|| panic!("{field} in {value}"))
}

#[test]
fn node_and_this_crate_understand_each_other() {
    if !node_available() {
        eprintln!("node is not installed: the Node interop check did not run");
        return;
    }
    let vapid = VapidKey::generate();
    let receiver = Receiver::generate();
    let message = "Approve the deploy? ✓ «ünïcödé»";
    let round_one = run_node(
        NODE_ROUND_ONE,
        &json!({
            "pem": vapid.to_pkcs8_pem(),
            "authorization": vapid.authorization("https://push.example.net", "mailto:ops@example.com", 1_900_000_000).unwrap(),
            "p256dh": receiver.p256dh_base64url(),
            "auth": receiver.auth_base64url(),
            "message": message,
        }),
    );

    // Node accepts our header and our PEM.
    assert_eq!(round_one["signatureValid"], json!(true), "{round_one}");
    assert_eq!(
        round_one["claims"],
        json!({ "aud": "https://push.example.net", "exp": 1_900_000_000u64, "sub": "mailto:ops@example.com" })
    );
    assert_eq!(
        text(&round_one, "ourPemPublic"),
        vapid.public_key_base64url()
    );

    // We accept Node's header, Node's PEM, and Node's body.
    let claims = verify_vapid(text(&round_one, "nodeAuthorization")).unwrap();
    assert_eq!(claims.sub, "mailto:node@example.com");
    assert_eq!(claims.public_key, text(&round_one, "nodePublic"));
    let node_key = VapidKey::from_pkcs8_pem(text(&round_one, "nodePem")).unwrap();
    assert_eq!(
        node_key.public_key_base64url(),
        text(&round_one, "nodePublic")
    );
    let body_for_us = base64_decode(text(&round_one, "bodyForUs"));
    assert_eq!(receiver.decrypt(&body_for_us).unwrap(), message.as_bytes());

    // Node, as the browser, decrypts our body.
    let node_receiver = SubscriptionKeys::from_base64url(
        text(&round_one, "receiverPublic"),
        text(&round_one, "receiverAuth"),
    )
    .unwrap();
    let body = encrypt(&node_receiver, message.as_bytes()).unwrap();
    let round_two = run_node(
        NODE_ROUND_TWO,
        &json!({
            "receiverPrivate": text(&round_one, "receiverPrivate"),
            "receiverAuth": text(&round_one, "receiverAuth"),
            "body": base64_encode(&body),
        }),
    );
    assert_eq!(text(&round_two, "message"), message);
}

fn base64_decode(text: &str) -> Vec<u8> {
    use base64::Engine;
    base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(text)
        .unwrap()
}

fn base64_encode(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}
