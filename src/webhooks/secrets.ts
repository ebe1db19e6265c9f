import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Webhook signing secrets (docs/webhooks.md). Standard Webhooks signs with HMAC-SHA256 keyed by the
 * secret itself, so the database cannot keep only a hash: it keeps the secret AES-256-GCM encrypted
 * under a key of the configuration (WEBHOOK_SECRET_KEY, or one generated in DATA_DIR), and a copy
 * of the database alone signs nothing. Neither a secret nor the key is ever logged.
 */

/** Standard Webhooks secrets: `whsec_` + base64 of 24 to 64 random bytes; we take 24, as Svix does. */
const SECRET_BYTES = 24;
const SECRET_PREFIX = 'whsec_';
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Versioned so a later change of cipher can read the older rows. */
const CIPHERTEXT_VERSION = 'v1';

export function newWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64');
}

/** `v1.<iv>.<tag>.<ciphertext>`, each part base64. */
export function encryptSecret(secret: string, key: Buffer): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return [CIPHERTEXT_VERSION, iv.toString('base64'), cipher.getAuthTag().toString('base64'), body.toString('base64')].join('.');
}

/** Throws when the text was not written by encryptSecret with this key (another key, or edited). */
export function decryptSecret(ciphertext: string, key: Buffer): string {
  const [version, iv, tag, body] = ciphertext.split('.');
  if (version !== CIPHERTEXT_VERSION || iv === undefined || tag === undefined || body === undefined) {
    throw new Error('not a webhook secret ciphertext');
  }
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'), { authTagLength: TAG_BYTES });
  decipher.setAuthTag(Buffer.from(tag, 'base64'));
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64')), decipher.final()]).toString('utf8');
}

/**
 * The AES-256 key: the SHA-256 of WEBHOOK_SECRET_KEY when it is set (any text of at least 32
 * characters, like SSO_JWT_SECRET), else of a random key generated once and kept in
 * `DATA_DIR/webhook-secret-key` (mode 0600), as the session secret is. A fleet sets the variable:
 * every instance must decrypt what another stored.
 */
export function webhookSecretKey(configured: string | undefined, dataDir: string): Buffer {
  return createHash('sha256')
    .update(configured ?? loadOrCreateKeyFile(dataDir))
    .digest();
}

function loadOrCreateKeyFile(dataDir: string): string {
  const file = path.join(dataDir, 'webhook-secret-key');
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch {
    fs.mkdirSync(dataDir, { recursive: true });
    try {
      // `wx`: when two processes start at once, the second's write fails and it reads the first's.
      fs.writeFileSync(file, randomBytes(32).toString('hex'), { mode: 0o600, flag: 'wx' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    return fs.readFileSync(file, 'utf8').trim();
  }
}
