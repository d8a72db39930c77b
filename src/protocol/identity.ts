import type { Wallet } from './fields.js';

// One reading of an identity, for the relay's access checks and the service (emulator) alike: a token's wallet
// `0xAbC…` and a body's `0XABC…` are the same player everywhere, as are chains `eip155:1` and `EIP155:1`.

const EVM_ADDRESS = /^0x[0-9a-f]{40}$/i;

/** E-mails compare trimmed and lower-cased. */
export const normaliseEmail = (email: string): string => email.trim().toLowerCase();

/** Chains compare trimmed and lower-cased. */
export const normaliseChain = (chain: string): string => chain.trim().toLowerCase();

/** EVM addresses (0x or 0X + 40 hex) lower-cased, the prefix too; other addresses as sent, trimmed. */
export function normaliseAddress(address: string): string {
  const trimmed = address.trim();
  return EVM_ADDRESS.test(trimmed) ? trimmed.toLowerCase() : trimmed;
}

/** A wallet with its chain and address normalised (normaliseChain, normaliseAddress): the form to compare and store. */
export const normaliseWallet = (wallet: Wallet): Wallet => ({
  chain: normaliseChain(wallet.chain),
  address: normaliseAddress(wallet.address),
});

/** Whether two wallets are the same player's: equal once normalised (`0xAbC…` on `EIP155:1` is `0xabc…` on `eip155:1`). */
export function sameWallet(a: Wallet, b: Wallet): boolean {
  const x = normaliseWallet(a);
  const y = normaliseWallet(b);
  return x.chain === y.chain && x.address === y.address;
}
