import { normaliseEmail, normaliseWallet, type Wallet } from '../protocol/index.js';

export interface UserRecord {
  serviceUserId: string;
  email: string | null;
  wallets: Wallet[];
}

export interface IdentityInput {
  serviceUserId?: string | undefined;
  email?: string | undefined;
  wallet?: Wallet | undefined;
}

// Identities compare as the protocol normalises them (protocol/identity.ts), the relay's access checks too.

const walletKey = (wallet: Wallet) => `${wallet.chain}\n${wallet.address}`;

/** cyrb53: a fast 53-bit string hash, so an identity maps to the same id in every run. */
function hash53(text: string): number {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ code, 2654435761);
    h2 = Math.imul(h2 ^ code, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/** The users the service knows: who an e-mail or a wallet belongs to. */
export function createUserDirectory() {
  const byId = new Map<string, UserRecord>();
  const byEmail = new Map<string, UserRecord>();
  const byWallet = new Map<string, UserRecord>();

  function derivedId(identity: string): string {
    const base = `usr_${hash53(identity).toString(36).padStart(11, '0')}`;
    let id = base;
    for (let n = 2; byId.has(id); n++) id = `${base}_${n}`;
    return id;
  }

  function ensure(serviceUserId: string): UserRecord {
    let user = byId.get(serviceUserId);
    if (!user) {
      user = { serviceUserId, email: null, wallets: [] };
      byId.set(serviceUserId, user);
    }
    return user;
  }

  function find(input: IdentityInput): UserRecord | undefined {
    if (input.email !== undefined) return byEmail.get(normaliseEmail(input.email));
    if (input.wallet !== undefined) return byWallet.get(walletKey(normaliseWallet(input.wallet)));
    return undefined;
  }

  function create(input: IdentityInput): UserRecord {
    const identity =
      input.email !== undefined ? `email:${normaliseEmail(input.email)}` : `wallet:${input.wallet ? walletKey(normaliseWallet(input.wallet)) : ''}`;
    const user = ensure(derivedId(identity));
    link(user, input);
    return user;
  }

  /** Why the e-mail or wallet cannot be attached to this user (undefined: it can). Changes nothing. */
  function conflict(user: UserRecord | undefined, input: IdentityInput): string | undefined {
    if (input.email !== undefined) {
      const email = normaliseEmail(input.email);
      const owner = byEmail.get(email);
      if (owner && owner !== user) return 'email already belongs to another user';
      if (user && user.email !== null && user.email !== email) return 'serviceUserId already has another e-mail';
    }
    if (input.wallet !== undefined) {
      const owner = byWallet.get(walletKey(normaliseWallet(input.wallet)));
      if (owner && owner !== user) return 'wallet already belongs to another user';
    }
    return undefined;
  }

  /** Attach an e-mail and/or wallet to a user (after conflict() said it may). */
  function link(user: UserRecord, input: IdentityInput): void {
    if (input.email !== undefined) {
      user.email = normaliseEmail(input.email);
      byEmail.set(user.email, user);
    }
    if (input.wallet !== undefined) {
      const wallet = normaliseWallet(input.wallet);
      const key = walletKey(wallet);
      if (!byWallet.has(key)) {
        user.wallets.push(wallet);
        byWallet.set(key, user);
      }
    }
  }

  /** Seeding and import: create or complete a user; an error message when the identities conflict. */
  function upsert(input: IdentityInput): UserRecord | string {
    if (input.serviceUserId === undefined && input.email === undefined && input.wallet === undefined) {
      return 'serviceUserId, email or wallet is required';
    }
    const existing = input.serviceUserId !== undefined ? byId.get(input.serviceUserId) : (find(input) ?? find({ wallet: input.wallet }));
    const problem = conflict(existing, input);
    if (problem) return problem;
    if (!existing && input.serviceUserId === undefined) return create(input);
    const user = existing ?? ensure(input.serviceUserId as string);
    link(user, input);
    return user;
  }

  return {
    get: (serviceUserId: string) => byId.get(serviceUserId),
    find,
    create,
    upsert,
    all: () => [...byId.values()],
    clear() {
      byId.clear();
      byEmail.clear();
      byWallet.clear();
    },
  };
}

export type UserDirectory = ReturnType<typeof createUserDirectory>;
