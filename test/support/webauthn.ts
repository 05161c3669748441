import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';

/*
 * A software authenticator for the API tests: a P-256 key pair made with node:crypto, and the WebAuthn objects it
 * answers (WebAuthn Level 3 §6.1 authenticator data, §6.5 attestation "none", §5.8.1 client data, §6.3.3 the
 * assertion signature), built here byte by byte, independently of the library the service verifies them with.
 */

const b64url = (bytes: Uint8Array | string) => Buffer.from(bytes).toString('base64url');
const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest();

// ---- CBOR (RFC 8949), as much as COSE keys and attestation objects need ----------------------------------------

type Cbor = number | string | Uint8Array | Map<number | string, Cbor>;

function head(major: number, length: number): Buffer {
  if (length < 24) return Buffer.from([(major << 5) | length]);
  if (length < 0x100) return Buffer.from([(major << 5) | 24, length]);
  if (length < 0x10000) return Buffer.from([(major << 5) | 25, length >> 8, length & 0xff]);
  const out = Buffer.alloc(5);
  out[0] = (major << 5) | 26;
  out.writeUInt32BE(length, 1);
  return out;
}

export function cbor(value: Cbor): Buffer {
  if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === 'string') {
    const bytes = Buffer.from(value, 'utf8');
    return Buffer.concat([head(3, bytes.length), bytes]);
  }
  if (value instanceof Uint8Array) return Buffer.concat([head(2, value.length), value]);
  return Buffer.concat([head(5, value.size), ...[...value].flatMap(([k, v]) => [cbor(k), cbor(v)])]);
}

// ---- the authenticator -----------------------------------------------------------------------------------------

const FLAG_UP = 0x01;
const FLAG_UV = 0x04;
const FLAG_AT = 0x40;

export interface WebAuthnOptionsJson {
  challenge: string;
  rp?: { id: string };
  rpId?: string;
}

export interface Answer {
  /** the page's origin the browser would write into the client data */
  origin?: string;
  /** the RP id the authenticator would hash into its data */
  rpId?: string;
  /** a challenge other than the options' (what another page's ceremony asked) */
  challenge?: string;
  /** the signature counter to report (default: one more than the last) */
  counter?: number;
}

/** One credential on a software authenticator: answers registration and sign-in as a browser and authenticator would. */
export class SoftAuthenticator {
  readonly credentialId: Buffer = randomBytes(32);
  private readonly privateKey: KeyObject;
  private readonly publicKey: KeyObject;
  counter = 0;

  constructor(
    readonly origin: string,
    readonly rpId = new URL(origin).hostname,
  ) {
    const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    this.privateKey = pair.privateKey;
    this.publicKey = pair.publicKey;
  }

  get id(): string {
    return b64url(this.credentialId);
  }

  /** The public key as COSE_Key (RFC 9053 §7.1.1): EC2, ES256, P-256, x and y. */
  coseKey(): Buffer {
    const jwk = this.publicKey.export({ format: 'jwk' });
    return cbor(
      new Map<number, Cbor>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, Buffer.from(jwk.x!, 'base64url')],
        [-3, Buffer.from(jwk.y!, 'base64url')],
      ]),
    );
  }

  private clientData(type: 'webauthn.create' | 'webauthn.get', options: WebAuthnOptionsJson, answer: Answer): Buffer {
    return Buffer.from(
      JSON.stringify({
        type,
        challenge: answer.challenge ?? options.challenge,
        origin: answer.origin ?? this.origin,
        crossOrigin: false,
      }),
    );
  }

  private authenticatorData(answer: Answer, flags: number, counter: number, attested?: Buffer): Buffer {
    const count = Buffer.alloc(4);
    count.writeUInt32BE(counter);
    return Buffer.concat([
      sha256(answer.rpId ?? this.rpId),
      Buffer.from([flags]),
      count,
      ...(attested ? [attested] : []),
    ]);
  }

  /** What navigator.credentials.create() answers, as JSON (attestation "none"). */
  register(options: WebAuthnOptionsJson, answer: Answer = {}) {
    const length = Buffer.alloc(2);
    length.writeUInt16BE(this.credentialId.length);
    const attested = Buffer.concat([Buffer.alloc(16), length, this.credentialId, this.coseKey()]);
    const authData = this.authenticatorData(answer, FLAG_UP | FLAG_UV | FLAG_AT, this.counter, attested);
    const attestationObject = cbor(
      new Map<string, Cbor>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', authData],
      ]),
    );
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key' as const,
      response: {
        clientDataJSON: b64url(this.clientData('webauthn.create', options, answer)),
        attestationObject: b64url(attestationObject),
        transports: ['usb'],
      },
      clientExtensionResults: {},
    };
  }

  /** What navigator.credentials.get() answers, as JSON: the signature over authenticator data and client data hash. */
  assert(options: WebAuthnOptionsJson, answer: Answer = {}) {
    const counter = answer.counter ?? this.counter + 1;
    this.counter = counter;
    const authData = this.authenticatorData(answer, FLAG_UP | FLAG_UV, counter);
    const clientData = this.clientData('webauthn.get', options, answer);
    // ES256: ECDSA over SHA-256, DER-encoded (node's default for EC keys), as WebAuthn §6.5.6 wants it.
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientData)]), this.privateKey);
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key' as const,
      response: {
        clientDataJSON: b64url(clientData),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
      },
      clientExtensionResults: {},
    };
  }
}
