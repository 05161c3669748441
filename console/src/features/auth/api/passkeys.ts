import type { ConsoleSession, MfaVerified } from '@svc/client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { client } from '../../../lib/client';
import { mfaStatusKey } from './mfa';
import { sessionKey, startedSession } from './session';

export const passkeysKey = ['passkeys'] as const;

// @simplewebauthn/browser is loaded when a passkey is first used or added: the sign-in page's first load stays small.
const webAuthn = () => import('@simplewebauthn/browser');

/** The signed-in user's passkeys and security keys. */
export function usePasskeys() {
  return useQuery({ queryKey: passkeysKey, queryFn: ({ signal }) => client.session.listPasskeys({ signal }) });
}

/**
 * Adds a passkey: the service's options, the browser's own dialog (navigator.credentials.create), then the answer
 * with its name. The answer holds the recovery codes of a first second factor (shown once) and the session, signed in
 * now if it had to set up two-step sign-in.
 */
export function useAddPasskey() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (name: string) => {
      const { startRegistration } = await webAuthn();
      const optionsJSON = await client.session.passkeyRegistrationOptions();
      const credential = await startRegistration({ optionsJSON });
      return client.session.registerPasskey({ name, credential });
    },
    gcTime: 0,
    onSuccess: (registered) => {
      queryClient.setQueryData<ConsoleSession>(sessionKey, registered.session);
      void queryClient.invalidateQueries({ queryKey: passkeysKey });
      void queryClient.invalidateQueries({ queryKey: mfaStatusKey });
    },
  });
}

/** Removes a passkey (refused while it is the last second factor of a user whose account requires one). */
export function useRemovePasskey() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (passkeyId: string) => client.session.removePasskey(passkeyId),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: passkeysKey });
      void queryClient.invalidateQueries({ queryKey: mfaStatusKey });
    },
  });
}

/**
 * The second step of a sign-in with a passkey: the service's challenge, the browser's dialog
 * (navigator.credentials.get), then the answer. The session is signed in under a new id; nothing read before
 * survives it.
 */
export function useVerifyPasskey() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (): Promise<MfaVerified> => {
      const { startAuthentication } = await webAuthn();
      const optionsJSON = await client.session.passkeyAuthenticationOptions();
      const credential = await startAuthentication({ optionsJSON });
      return client.session.verifyPasskey({ credential });
    },
    onSuccess: (verified) => startedSession(queryClient, verified.session),
  });
}
