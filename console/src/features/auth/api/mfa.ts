import type { ConsoleSession, MfaCodeRequest, TotpCodeRequest } from '@svc/client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { client } from '../../../lib/client';
import { sessionKey, startedSession } from './session';

export const mfaStatusKey = ['mfa-status'] as const;

/** The signed-in user's two-step sign-in: set up or not, recovery codes left, whether the account requires it. */
export function useMfaStatus() {
  return useQuery({ queryKey: mfaStatusKey, queryFn: ({ signal }) => client.session.mfaStatus({ signal }) });
}

/**
 * The second step of a sign-in: a code of the authenticator, or a recovery code. The session is signed in under a
 * new id; nothing read before survives it.
 */
export function useVerifyMfa() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: MfaCodeRequest) => client.session.verifyMfa(input),
    onSuccess: (verified) => startedSession(queryClient, verified.session),
  });
}

/** A new TOTP secret to show as a QR code; it counts once confirmed. The answer holds the secret: not cached. */
export function useStartTotp() {
  return useMutation({ mutationFn: () => client.session.startTotp(), gcTime: 0 });
}

/**
 * Confirms the authenticator with a code of it; the answer holds the recovery codes (shown once) and the session,
 * which is signed in now if it had to set it up.
 */
export function useConfirmTotp() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: TotpCodeRequest) => client.session.confirmTotp(input),
    gcTime: 0,
    onSuccess: (confirmed) => {
      queryClient.setQueryData<ConsoleSession>(sessionKey, confirmed.session);
      void queryClient.invalidateQueries({ queryKey: mfaStatusKey });
    },
  });
}

/** New recovery codes for a current code of the authenticator; the old ones stop working. */
export function useRenewRecoveryCodes() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: TotpCodeRequest) => client.session.renewRecoveryCodes(input),
    gcTime: 0,
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: mfaStatusKey }),
  });
}
