import type { ReceiptPolicyRequest, ReviewSettingsRequest } from '@svc/client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { client } from '../../../lib/client';

/** The settings screen's query keys. */
const keys = {
  reviewSettings: ['settings', 'review'] as const,
  receiptPolicy: ['settings', 'receipt-policy'] as const,
};

/** The account's review settings (auto-submit). */
export function useReviewSettings() {
  return useQuery({
    queryKey: keys.reviewSettings,
    queryFn: ({ signal }) => client.review.reviewSettings({ signal }),
  });
}

export function useSaveReviewSettings() {
  const queries = useQueryClient();
  return useMutation({
    mutationFn: (settings: ReviewSettingsRequest) => client.review.setReviewSettings(settings),
    onSuccess: (saved) => queries.setQueryData(keys.reviewSettings, saved),
  });
}

/** The account's receipt policy: per currency, the amount above which a record needs a receipt. */
export function useReceiptPolicy() {
  return useQuery({
    queryKey: keys.receiptPolicy,
    queryFn: ({ signal }) => client.review.receiptPolicy({ signal }),
  });
}

export function useSaveReceiptPolicy() {
  const queries = useQueryClient();
  return useMutation({
    mutationFn: (policy: ReceiptPolicyRequest) => client.review.setReceiptPolicy(policy),
    onSuccess: async (saved) => {
      queries.setQueryData(keys.receiptPolicy, saved);
      // What a record may do next (its allowed moves) follows the policy.
      await queries.invalidateQueries({ queryKey: ['records'] });
    },
  });
}
