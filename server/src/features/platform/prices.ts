import fs from 'node:fs';
import { z } from 'zod';
import { storedJson } from '../../db/stored.js';

const Infrastructure = z.object({ base: z.number(), cpu_core: z.number(), memory_gb: z.number(), gpu_gb: z.number(), auto_scaling: z.number(), per_million_requests: z.number() });

/** The price list (MITATE_PLATFORM_PRICES: JSON text or a path to a JSON file; this default otherwise).
 * Amounts are integer minor units of `currency` per month; a yearly cycle pays 12 months less the discount. */
const PriceList = z.object({
  currency: z.string(),
  subscription: z.record(z.string(), z.number()), // per subscription type
  infrastructure: Infrastructure,
  yearly_discount_percent: z.number(),
});
export type PriceList = z.output<typeof PriceList>;

/** What MITATE_PLATFORM_PRICES gives: any of the list's fields and of its infrastructure prices (the rest are the
 * default's). A text that is not JSON, or not this shape, stops the start-up (named). */
const GivenPrices = z.object({ ...PriceList.shape, infrastructure: Infrastructure.partial() }).partial();

export const DEFAULT_PRICES: PriceList = {
  currency: 'JPY',
  subscription: { free: 0, standard: 9800, premium: 49800 },
  infrastructure: { base: 3000, cpu_core: 2500, memory_gb: 600, gpu_gb: 9000, auto_scaling: 2000, per_million_requests: 1500 },
  yearly_discount_percent: 10,
};

export function loadPrices(env: NodeJS.ProcessEnv): PriceList {
  const v = env.MITATE_PLATFORM_PRICES?.trim();
  if (!v) return DEFAULT_PRICES;
  const text = v.startsWith('{') ? v : fs.readFileSync(v, 'utf8');
  const given = storedJson('platform price list (MITATE_PLATFORM_PRICES)', GivenPrices, text);
  return { ...DEFAULT_PRICES, ...given, infrastructure: { ...DEFAULT_PRICES.infrastructure, ...(given.infrastructure ?? {}) } };
}

export interface QuoteInput {
  subscription_type: string;
  billing_cycle: 'monthly' | 'yearly';
  cpu_cores: number;
  memory_gb: number;
  gpu_gb: number;
  auto_scaling: boolean;
  expected_requests_per_month: number;
}

export interface Quote {
  currency: string;
  billing_cycle: 'monthly' | 'yearly';
  subscription_price: number;
  infrastructure_price: number; // the base infrastructure price of the cycle (usage beyond it is metered)
  total: number;
  lines: { item: string; amount: number }[];
}

/** The one price rule: the web form shows it as the user types, the server stores it on the project. */
export function quote(prices: PriceList, q: QuoteInput): Quote {
  const inf = prices.infrastructure;
  const monthly = [
    { item: 'base', amount: inf.base },
    { item: 'cpu_cores', amount: q.cpu_cores * inf.cpu_core },
    { item: 'memory_gb', amount: q.memory_gb * inf.memory_gb },
    { item: 'gpu_gb', amount: q.gpu_gb * inf.gpu_gb },
    { item: 'auto_scaling', amount: q.auto_scaling ? inf.auto_scaling : 0 },
    { item: 'expected_requests', amount: (q.expected_requests_per_month / 1_000_000) * inf.per_million_requests },
  ];
  const months = q.billing_cycle === 'yearly' ? 12 * (1 - prices.yearly_discount_percent / 100) : 1;
  const lines = monthly.map((l) => ({ item: l.item, amount: Math.round(l.amount * months) }));
  const infrastructure_price = lines.reduce((s, l) => s + l.amount, 0);
  const subscription_price = Math.round((prices.subscription[q.subscription_type] ?? 0) * months);
  return { currency: prices.currency, billing_cycle: q.billing_cycle, subscription_price, infrastructure_price, total: subscription_price + infrastructure_price, lines };
}
