import { Link } from 'wouter';
import { PageHeading } from '../components/PageHeading';

export function NotFoundRoute() {
  return (
    <>
      <PageHeading title="Page not found" />
      <p>
        The console has no page at this address. Go to the <Link href="/">overview</Link> or the{' '}
        <Link href="/queue">review queue</Link>.
      </p>
    </>
  );
}
