#!/usr/bin/env bash
# One command from an empty (or half-set-up) project to a running Biblioteca: everything
# docs/deploy.md lists, in its order, each resource described first and created only when
# it is missing; the bindings, `services enable`, the bucket's website settings and the
# build (which deploys the functions, indexes, scheduler job, alert and queue) are
# idempotent by nature. Run it again to update: it changes only what is missing.
#
#   make deploy PROJECT=my-biblioteca REGION=europe-west1 DOMAIN=docs.example.com
#   deploy/deploy.sh --project=my-biblioteca --region=europe-west1 --domain=docs.example.com
#   DRY_RUN=1 deploy/deploy.sh …   (or --dry-run): print each gcloud command, run nothing
#
# Optional environment: BILLING_ACCOUNT (links a new project), FIRESTORE_LOCATION
# (default: eur3 for a europe-* region, nam5 otherwise), GEMINI_API_KEY (without it the
# key secret holds a placeholder and the functions run with the local models),
# WIDGET_ORIGINS (your own sites that carry the widget, comma-separated: CORS on ask and
# feedback, docs/widget.md), ALERT_EMAIL, CODE_URL, TEST_CORPUS_DIR (default ../shared/corpus/fastapi-es, copied to
# the CI bucket for the build's tests when present).
# Left to you (docs/deploy.md): the DNS A record, the GitHub connection and trigger.
set -euo pipefail
cd "$(dirname "$0")/.."

PROJECT="${PROJECT:-}"
REGION="${REGION:-}"
DOMAIN="${DOMAIN:-}"
DRY_RUN="${DRY_RUN:-}"
for arg in "$@"; do
  case "$arg" in
    --project=*) PROJECT="${arg#*=}" ;;
    --region=*) REGION="${arg#*=}" ;;
    --domain=*) DOMAIN="${arg#*=}" ;;
    --dry-run) DRY_RUN=1 ;;
    -h | --help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "deploy.sh: unknown argument $arg (see --help)" >&2; exit 2 ;;
  esac
done
[[ "$DRY_RUN" == 0 ]] && DRY_RUN=""
missing=()
[[ -n "$PROJECT" ]] || missing+=("PROJECT (--project)")
[[ -n "$REGION" ]] || missing+=("REGION (--region)")
[[ -n "$DOMAIN" ]] || missing+=("DOMAIN (--domain: the site's host name, e.g. docs.example.com)")
if ((${#missing[@]})); then
  printf 'deploy.sh: missing %s\n' "${missing[@]}" >&2
  exit 2
fi
if [[ -z "${FIRESTORE_LOCATION:-}" ]]; then
  if [[ "$REGION" == europe-* ]]; then FIRESTORE_LOCATION=eur3; else FIRESTORE_LOCATION=nam5; fi
fi
SITE_BUCKET="$PROJECT-biblioteca-site"
REPORT_BUCKET="$PROJECT-biblioteca-report"
CI_BUCKET="$PROJECT-biblioteca-ci"
RUNTIME_SA="biblioteca-runtime@$PROJECT.iam.gserviceaccount.com"
DEPLOYER_SA="biblioteca-deployer@$PROJECT.iam.gserviceaccount.com"
SCHEDULER_SA="biblioteca-scheduler@$PROJECT.iam.gserviceaccount.com"
CORPUS="${TEST_CORPUS_DIR:-../shared/corpus/fastapi-es}"
LB=biblioteca-site

# One gcloud call, on the project: printed (one line, shell-quoted) under a dry run,
# run otherwise. Its input, when it has one, is the caller's stdin.
g() {
  if [[ -n "$DRY_RUN" ]]; then
    printf 'gcloud'; printf ' %q' "$@" "--project=$PROJECT"; printf '\n'
  else
    echo "+ gcloud $*" >&2
    gcloud "$@" "--project=$PROJECT"
  fi
}

# Whether a resource exists: its describe command, quiet. A dry run prints it and
# answers "no", so the create that follows is printed too.
exists() {
  if [[ -n "$DRY_RUN" ]]; then
    g "$@"
    return 1
  fi
  gcloud "$@" "--project=$PROJECT" >/dev/null 2>&1
}

# A secret's first version: given on stdin, never on a command line.
secret() {
  local name="$1" value="$2"
  exists secrets describe "$name" && return 0
  local create=(secrets create "$name" --replication-policy=automatic --data-file=-)
  if [[ -n "$DRY_RUN" ]]; then
    g "${create[@]}"  # not fed: a printed command reads nothing, and printf would die of SIGPIPE
  else
    printf %s "$value" | g "${create[@]}"
  fi
}

step() {
  if [[ -n "$DRY_RUN" ]]; then printf '# %s\n' "$*"; else printf '\n== %s\n' "$*" >&2; fi
}

step "1. project and APIs"
if ! exists projects describe "$PROJECT"; then
  g projects create "$PROJECT"
  if [[ -n "${BILLING_ACCOUNT:-}" ]]; then
    g billing projects link "$PROJECT" --billing-account="$BILLING_ACCOUNT"
  fi
fi
g services enable \
  cloudfunctions.googleapis.com run.googleapis.com cloudbuild.googleapis.com \
  artifactregistry.googleapis.com firestore.googleapis.com secretmanager.googleapis.com \
  cloudscheduler.googleapis.com iam.googleapis.com storage.googleapis.com \
  compute.googleapis.com logging.googleapis.com monitoring.googleapis.com \
  pubsub.googleapis.com eventarc.googleapis.com

step "2. Firestore in native mode"
exists firestore databases describe --database='(default)' \
  || g firestore databases create --location="$FIRESTORE_LOCATION" --type=firestore-native

step "3. service accounts and roles"
for name in runtime deployer scheduler; do
  exists iam service-accounts describe "biblioteca-$name@$PROJECT.iam.gserviceaccount.com" \
    || g iam service-accounts create "biblioteca-$name" --display-name="Biblioteca $name"
done
g projects add-iam-policy-binding "$PROJECT" \
  --member="serviceAccount:$RUNTIME_SA" --role=roles/datastore.user --condition=None
for role in roles/cloudfunctions.admin roles/run.admin roles/cloudbuild.builds.builder \
  roles/cloudscheduler.admin roles/datastore.indexAdmin roles/logging.logWriter \
  roles/logging.configWriter roles/monitoring.alertPolicyEditor \
  roles/monitoring.notificationChannelEditor roles/pubsub.admin roles/eventarc.admin; do
  g projects add-iam-policy-binding "$PROJECT" \
    --member="serviceAccount:$DEPLOYER_SA" --role="$role" --condition=None
done
for sa in "$RUNTIME_SA" "$SCHEDULER_SA" "$DEPLOYER_SA"; do
  g iam service-accounts add-iam-policy-binding "$sa" \
    --member="serviceAccount:$DEPLOYER_SA" --role=roles/iam.serviceAccountUser
done

step "4. secrets"
secret biblioteca-google-ai-api-key "${GEMINI_API_KEY:-placeholder-local-models}"
secret biblioteca-api-token "$(openssl rand -base64 32 | tr -d '\n')"
secret biblioteca-api-tokens "admin:$(openssl rand -hex 24)"
for name in biblioteca-google-ai-api-key biblioteca-api-token biblioteca-api-tokens; do
  g secrets add-iam-policy-binding "$name" \
    --member="serviceAccount:$RUNTIME_SA" --role=roles/secretmanager.secretAccessor
done

step "5. the site's bucket, its load balancer, the report bucket"
exists storage buckets describe "gs://$SITE_BUCKET" \
  || g storage buckets create "gs://$SITE_BUCKET" --location="$REGION" --uniform-bucket-level-access
g storage buckets update "gs://$SITE_BUCKET" --web-main-page-suffix=index.html --web-error-page=404.html
g storage buckets add-iam-policy-binding "gs://$SITE_BUCKET" \
  --member=allUsers --role=roles/storage.objectViewer
g storage buckets add-iam-policy-binding "gs://$SITE_BUCKET" \
  --member="serviceAccount:$RUNTIME_SA" --role=roles/storage.objectUser
exists compute backend-buckets describe "$LB" \
  || g compute backend-buckets create "$LB" --gcs-bucket-name="$SITE_BUCKET" --enable-cdn
exists compute url-maps describe "$LB" --global \
  || g compute url-maps create "$LB" --default-backend-bucket="$LB" --global
exists compute ssl-certificates describe "$LB" --global \
  || g compute ssl-certificates create "$LB" --domains="$DOMAIN" --global
exists compute target-https-proxies describe "$LB" --global \
  || g compute target-https-proxies create "$LB" --url-map="$LB" --ssl-certificates="$LB" --global
exists compute addresses describe "$LB" --global \
  || g compute addresses create "$LB" --global
exists compute forwarding-rules describe "$LB" --global \
  || g compute forwarding-rules create "$LB" --global \
    --address="$LB" --target-https-proxy="$LB" --ports=443
exists storage buckets describe "gs://$REPORT_BUCKET" \
  || g storage buckets create "gs://$REPORT_BUCKET" --location="$REGION" \
    --uniform-bucket-level-access --public-access-prevention
g storage buckets add-iam-policy-binding "gs://$REPORT_BUCKET" \
  --member="serviceAccount:$RUNTIME_SA" --role=roles/storage.objectUser

step "6. the tests' corpus, for the build"
test_corpus=""
if [[ -d "$CORPUS/docs" ]]; then
  exists storage buckets describe "gs://$CI_BUCKET" \
    || g storage buckets create "gs://$CI_BUCKET" --location="$REGION" --uniform-bucket-level-access
  g storage rsync --recursive "$CORPUS" "gs://$CI_BUCKET/corpus/fastapi-es"
  g storage buckets add-iam-policy-binding "gs://$CI_BUCKET" \
    --member="serviceAccount:$DEPLOYER_SA" --role=roles/storage.objectViewer
  test_corpus="gs://$CI_BUCKET/corpus/fastapi-es"
fi

step "7. the build: tests, then the functions, indexes, scheduler, alert and queue"
llm=gemini
[[ -n "${GEMINI_API_KEY:-}" ]] || llm=local
# ";" separates the substitutions (gcloud's ^;^ escape): WIDGET_ORIGINS is a comma list.
subs="^;^_REGION=$REGION;_SITE_BUCKET=$SITE_BUCKET;_REPORT_BUCKET=$REPORT_BUCKET"
subs+=";_SITE_ORIGIN=https://$DOMAIN;_WIDGET_ORIGINS=${WIDGET_ORIGINS:-};_TEST_CORPUS=$test_corpus"
subs+=";_LLM=$llm;_EMBEDDER=$llm;_ALERT_EMAIL=${ALERT_EMAIL:-};_CODE_URL=${CODE_URL:-}"
g builds submit --region="$REGION" --config=cloudbuild.yaml \
  --ignore-file=deploy/build.gcloudignore \
  --service-account="projects/$PROJECT/serviceAccounts/$DEPLOYER_SA" \
  --substitutions="$subs"

step "8. the site's first build"
g scheduler jobs run biblioteca-rebuild --location="$REGION"

step "done"
if [[ -z "$DRY_RUN" ]]; then
  address=$(gcloud compute addresses describe "$LB" --global --format='value(address)' "--project=$PROJECT")
  echo "Point an A record for $DOMAIN at $address; the certificate turns ACTIVE minutes after DNS resolves." >&2
  echo "The widget and ask: https://$REGION-$PROJECT.cloudfunctions.net/ask (docs/widget.md)." >&2
fi
