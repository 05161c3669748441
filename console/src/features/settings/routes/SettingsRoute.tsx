import { ErrorMessage } from '../../../components/ErrorMessage';
import { useSessionScopes } from '../../auth/api/session';
import { Loading } from '../../../components/Loading';
import { PageHeading } from '../../../components/PageHeading';
import { useReceiptPolicy, useReviewSettings } from '../api/settings';
import { ReceiptPolicyForm } from '../components/ReceiptPolicyForm';
import { ReviewSettingsForm } from '../components/ReviewSettingsForm';
import { canManageSettings, canSeeSettings } from '../roles';
import '../settings.css';

function SettingsScreen({ mayWrite }: { mayWrite: boolean }) {
  const review = useReviewSettings();
  const policy = useReceiptPolicy();
  return (
    <>
      {!mayWrite && <p className="notice notice-info">Only account admins change these settings.</p>}
      {review.isPending && <Loading label="Loading the review settings…" />}
      {review.isError && (
        <ErrorMessage title="The review settings could not be loaded." error={review.error}>
          <button type="button" onClick={() => void review.refetch()}>
            Try again
          </button>
        </ErrorMessage>
      )}
      {review.data && <ReviewSettingsForm settings={review.data} mayWrite={mayWrite} />}
      {policy.isPending && <Loading label="Loading the receipt policy…" />}
      {policy.isError && (
        <ErrorMessage title="The receipt policy could not be loaded." error={policy.error}>
          <button type="button" onClick={() => void policy.refetch()}>
            Try again
          </button>
        </ErrorMessage>
      )}
      {policy.data && <ReceiptPolicyForm policy={policy.data} mayWrite={mayWrite} />}
    </>
  );
}

/** The account's settings: bookkeepers see them; an admin changes them. */
export function SettingsRoute() {
  const scopes = useSessionScopes();
  return (
    <>
      <PageHeading title="Settings" />
      {canSeeSettings(scopes) ? (
        <SettingsScreen mayWrite={canManageSettings(scopes)} />
      ) : (
        <p className="notice notice-info">Only bookkeepers and account admins see the account&rsquo;s settings.</p>
      )}
    </>
  );
}
