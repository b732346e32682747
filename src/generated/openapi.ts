// GENERATED from openapi.yaml by codegen/generate.ts — do not edit.
// Change openapi.yaml, then run `npm run codegen` and commit the result.

export interface paths {
  "/v1/pdf-md": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Convert a PDF to Markdown
     * @description Converts a PDF to Markdown. Price: 10000 atomic units (0.01 USDC) per page; the quote
     *     is the price times the page count of the document sent. At most 50 MB and 2,000 pages.
     */
    post: operations["pdfMd"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/v1/pdf-text": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Extract the plain text of a PDF
     * @description Extracts the text of a PDF, pages separated by form feeds (`\f`). Price: 5000 atomic
     *     units per page. At most 50 MB and 2,000 pages.
     */
    post: operations["pdfText"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/v1/pdf-json": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Extract positioned text blocks of a PDF
     * @description Returns the text of each page as blocks with their position, size, font, kind (heading,
     *     paragraph, list, code, table, header, footer) and heading level; each page's tables
     *     with their rows and cells; and the document's outline. Coordinates are PDF points (1/72 inch) from the top-left corner of the page, `y`
     *     growing downwards. Price: 15000 atomic units per page. At most 50 MB and 2,000 pages.
     */
    post: operations["pdfJson"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/v1/invoice-extract": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Extract invoice fields from a PDF or an image
     * @description Extracts vendor, invoice number, date, currency, total amount, VAT and line items from
     *     an invoice sent as a PDF or as a PNG or JPEG image (scanned invoices are read with OCR).
     *     Every field is `null` when it could not be found; `confidence` gives a score from 0 to 1
     *     per field. Price: 25000 atomic units per request. At most 50 MB.
     */
    post: operations["invoiceExtract"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/v1/{slug}/{path_suffix}": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Call an endpoint published by a seller
     * @description Calls the seller endpoint published as `/v1/{slug}/{path_suffix}`, paid with the same
     *     402 flow as the built-in tools (an unpaid call, for example with body `{}`, answers the
     *     quote). The body (any content type, up to 50 MB) is forwarded to the seller's upstream,
     *     without the buyer's credentials (`X-Payment`, `X-Session-Token`, `PAYMENT-SIGNATURE`,
     *     `Authorization`, cookies) and hop-by-hop headers. The service adds `X-Paycall-Payer`,
     *     `X-Paycall-Tx`, `X-Paycall-Network`, `Idempotency-Key` (`"<X-Paycall-Tx>"`) and
     *     `Content-Digest` (RFC 9530), and signs them with an HTTP Message Signature (RFC 9421:
     *     `Signature-Input` / `Signature` labelled `paycall`, Ed25519, covering `@method`,
     *     `@target-uri`, `content-digest` and the four headers, with `created` and `keyid`); the
     *     public key is `forward_signing` of `GET /v1/_meta`, so the seller can verify with any
     *     RFC 9421 library that the call came through the marketplace and was paid. Forwards are
     *     at-least-once: a call whose forwarding instance died is forwarded again on the buyer's
     *     retry, with the same `X-Paycall-Tx` and `Idempotency-Key`, by which the seller can
     *     deduplicate it; one answer is stored and replayed. The answer is streamed back (without `Set-Cookie` and hop-by-hop headers);
     *     answers up to 10 MB are also stored, so a retry with the same receipt replays them
     *     without calling the upstream again; a retry after a larger answer gets `409`.
     *
     *     * `proxy` mode (take rate 4 %): a streamed reverse proxy; 30 s upstream timeout
     *       (`504 upstream_timeout`), upstream 5xx answers retried with back-off for up to 60 s
     *       (then `502 upstream_5xx`).
     *     * `paywall` mode (take rate 3 %): one forward, no retry; the upstream's answer is
     *       passed back as it is, whatever its status (see the `default` response).
     *
     *     Paths under `/v1/` that start with `_` and the fixed paths of this document are never
     *     seller endpoints: the service's own operations take precedence. A path whose slug or
     *     suffix cannot exist answers `404 endpoint_not_found`.
     */
    post: operations["callSellerEndpoint"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/v1/_meta": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Live catalog
     * @description The service's identity and its live catalog: the built-in tools (seller `paycall`)
     *     and the endpoints published by sellers (seller = the seller's wallet). Deleted
     *     endpoints are never listed.
     */
    get: operations["getMeta"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/.well-known/x402": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * x402 discovery document (x402scan)
     * @description The origin's x402 discovery document as x402scan reads it: `version` and the URL of
     *     every paid operation (the built-ins, the paid MCP server and every live seller
     *     endpoint). Prices come from each URL's 402. No `ownershipProofs`: seller endpoints
     *     are paid to the sellers' own wallets, whose keys the service does not hold.
     */
    get: operations["getWellKnownX402"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/v1/_health": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Service health
     * @description Health of the database, the chain RPCs and the facilitators (EVM relayer that submits
     *     gasless authorizations, Solana fee payer). `status` is `ok` when every check passes,
     *     `degraded` when a chain or facilitator check fails, `down` (HTTP 503) when the
     *     database is unreachable. Each check says only whether it passed and how long it took:
     *     why a check failed, the signers' addresses and their balances are for operators
     *     (`GET /health/details` on the operator listener).
     */
    get: operations["getHealth"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/docs": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * API reference page
     * @description This contract rendered as a browsable reference (Scalar's API reference, served by the
     *     service itself from `GET /docs/assets/{asset}` and `GET /openapi.yaml`: the page loads
     *     nothing from any other host). Its `Content-Security-Policy` allows scripts, styles,
     *     fonts and connections from this origin only (the viewer's own style element carries the
     *     page's nonce).
     */
    get: operations["getDocs"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/docs/assets/{asset}": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * A file of the reference page
     * @description The viewer's script, from the installed package. Its name carries the viewer's version,
     *     so it is cached for a year (`Cache-Control: public, max-age=31536000, immutable`): a new
     *     version is a new name.
     */
    get: operations["getDocsAsset"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/openapi.yaml": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * This contract
     * @description This OpenAPI 3.1 document, as the service runs it: generate a client from it (see the
     *     README), or read it at `GET /docs`.
     */
    get: operations["getOpenApi"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Catalog page
     * @description The catalog as a page for people: the built-in tools and every live seller endpoint
     *     (active and degraded) with its price, unit, mode, seller, reliability figures and
     *     copy-ready `curl`, `paycall call` and MCP snippets. Server-rendered HTML that works
     *     without JavaScript (the search is a plain GET form, `q`, ranked by the same full-text
     *     search as `GET /discovery/search`); its stylesheet and script come from
     *     `GET /assets/{asset}`, and its `Content-Security-Policy` allows nothing inline.
     *
     *     A client that asks for JSON (`Accept` names `application/json` and not `text/html`)
     *     gets a short JSON pointer to the machine-readable catalog instead.
     */
    get: operations["getCatalogPage"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/assets/{asset}": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * A file of the catalog page
     * @description The catalog page's stylesheet, script and icon. Each name carries a hash of its
     *     content, so it is cached for a year (`Cache-Control: public, max-age=31536000,
     *     immutable`): a changed file is a new name.
     */
    get: operations["getCatalogAsset"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/console": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Seller console page
     * @description The seller console: an HTML page and its scripts (`GET /console/assets/{asset}`) that
     *     connect an EVM browser wallet (EIP-1193 `window.ethereum`; Solana wallets are not
     *     supported yet) and call this API with `fetch`, every action signed by the wallet as the
     *     EIP-712 `SellerAction` the API already takes: register a slug, publish, update and
     *     delete endpoints, read statistics and error counts, issue, list and revoke API keys,
     *     request a payout. The page holds no credential and has no operation of its own. Its
     *     `Content-Security-Policy` allows scripts, styles and connections from this origin only,
     *     with no inline script or style.
     */
    get: operations["getConsole"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/console/assets/{asset}": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * A file of the seller console
     * @description The console's ES-module scripts, its style sheet and icon, served from the service's own
     *     files (`Cache-Control: no-cache`: revalidated, so a deploy is seen at once).
     */
    get: operations["getConsoleAsset"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/v1/keys": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List the API keys of a wallet
     * @description Lists every key of a wallet, revoked ones included, without secrets. Authorised by a
     *     Bearer key with scope `read` (the key's wallet), or by the query parameters `wallet`,
     *     `sig` and `ts`: a signature of action `list_api_keys` (payloadHash: keccak-256 of the
     *     wallet as sent), so a wallet whose keys are all revoked can still list them. Like the
     *     other reads, a signature may be reused within its timestamp window.
     */
    get: operations["listApiKeys"];
    put?: never;
    /**
     * Issue an API key
     * @description Issues a Bearer API key for a wallet, authorised by a fresh wallet signature of action
     *     `issue_api_key` (payloadHash: keccak-256 of the compact JSON `{label, scopes}`). The
     *     secret `api_key` is returned once and never again. A Bearer key cannot issue keys
     *     (`403 signature_required`).
     */
    post: operations["issueApiKey"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/v1/keys/{id}": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    /**
     * Revoke an API key
     * @description Revokes a key. Either the owning wallet signs action `revoke_api_key` (payloadHash:
     *     keccak-256 of the id in decimal) and sends `X-Wallet`, `X-Signature` and
     *     `X-Timestamp`, or the key revokes itself with `Authorization: Bearer <that key>` (any
     *     scope; a Bearer key can revoke only itself). Revoking a key that is already revoked
     *     answers 200 with its original `revoked_at`.
     */
    delete: operations["revokeApiKey"];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/v1/account": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Balances of a wallet
     * @description Earnings and spending of a wallet. Authorised by a Bearer key with scope
     *     `balance:read` (the key's wallet; `scopes` is then included), or by the query
     *     parameters `wallet`, `sig` and `ts`: a signature of action `read_account` (payloadHash:
     *     keccak-256 of the wallet as sent). A wallet that never bought nor sold answers zeros.
     */
    get: operations["getAccount"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/v1/_seller/register": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Register as a seller
     * @description Registers a wallet as a seller under a globally unique slug. Free (no payment). A
     *     wallet owns at most one slug. Two body shapes are accepted:
     *
     *     * **Shape A** (multi-chain): `primary_wallet`, `wallets` (chain -> address),
     *       `signatures` (chain -> signature: every listed wallet signs action `register`), `slug`,
     *       `ts`, optional `payout_chain`.
     *     * **Shape B** (single wallet): `wallet`, `slug`, `signature`, `timestamp`.
     *
     *     **What is signed.** Shape B: payloadHash = keccak-256 of the slug; the wallet is the sole
     *     owner and is paid on its own chain (`base` for an EVM wallet, `solana` for a Solana
     *     wallet). Shape A: every wallet of `wallets` signs action `register` with the same `ts`
     *     and payloadHash = keccak-256 of the UTF-8 text of the compact JSON (no spaces)
     *
     *     `{"slug":<slug>,"wallets":{<chain>:<address>,...},"primary_wallet":<address>,"payout_chain":<chain>}`
     *
     *     with the keys in that order, the chains of `wallets` sorted (`arbitrum`, `avalanche`,
     *     `base`, `optimism`, `polygon`, `solana`), every address normalised (EVM: lower-case
     *     `0x` hex; Solana: base58 as is) and `payout_chain` the chain payouts will use (the one
     *     sent, or the default below when it is omitted). A signature therefore covers who owns
     *     the slug, who is its primary wallet and where it is paid. Example: slug `acme-ocr`,
     *     `base` and `polygon` `0x2d4C407BBe49438ED859fe965b140dcF1aaB71a9`, `solana`
     *     `9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin`, that Solana wallet primary, paid on
     *     `solana`: the text is
     *     `{"slug":"acme-ocr","wallets":{"base":"0x2d4c407bbe49438ed859fe965b140dcf1aab71a9","polygon":"0x2d4c407bbe49438ed859fe965b140dcf1aab71a9","solana":"9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin"},"primary_wallet":"0x2d4c407bbe49438ed859fe965b140dcf1aab71a9","payout_chain":"solana"}`
     *     and payloadHash `0x776538e6366586b2947f5fbed968f1d00e2a54078898ffac845852306245b2ba`.
     *     A shape-A request whose one wallet stands under the chain shape B would record it on
     *     (an EVM wallet under `base`, a Solana wallet under `solana`), and is therefore primary
     *     and paid there, registers exactly what shape B would: its wallet may sign the slug alone
     *     instead. Any other shape-A request signed over the slug alone is `401
     *     invalid_signature` (the hint gives the text to sign). A registration signature works
     *     once (`409 signature_already_used`), whichever shape carries it.
     *
     *     The body is limited to 4 KB (`413 body_too_large`). When `payout_chain` is omitted it is
     *     the chain of the primary wallet (the first of `base`, `polygon`, `arbitrum`,
     *     `optimism`, `avalanche`, `solana` whose wallet is the primary one). `base`, `polygon`
     *     and `solana` are always payout chains; `arbitrum`, `optimism` and `avalanche` only where
     *     the deployment configures them (otherwise `400 invalid_input` on `body.payout_chain`).
     */
    post: operations["registerSeller"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/v1/_seller/{wallet}/endpoints": {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /**
         * @description The seller's wallet, an EVM address (`0x` + 40 hex) or a Solana address (base58).
         * @example 0x2d4C407BBe49438ED859fe965b140dcF1aaB71a9
         */
        wallet: components["parameters"]["WalletPath"];
      };
      cookie?: never;
    };
    /**
     * List a seller's endpoints
     * @description Lists the seller's endpoints that are not deleted, with their status and last probe.
     *     Query `sig` and `ts` (signed action `list_endpoints`, payloadHash: keccak-256 of the
     *     wallet as sent), or a Bearer key of that wallet with scope `read`.
     */
    get: operations["listSellerEndpoints"];
    put?: never;
    /**
     * Publish a paid endpoint
     * @description Publishes an HTTPS upstream as the paid endpoint `/v1/{slug}/{path_suffix}`. Signed
     *     action `add_endpoint` (payloadHash: keccak-256 of the compact JSON of the six fields
     *     `path_suffix, upstream_url, atomic_price, unit, desc, mode`, in that order), or a
     *     Bearer key with scope `endpoints:write` (then `signature` and `timestamp` may be
     *     omitted). The upstream is probed once synchronously (POST of `sample_body` or `{}`,
     *     10 s): it must answer 200 with JSON, otherwise `400 upstream_unreachable` saying what
     *     came back. The URL must be HTTPS and resolve only to public addresses (loopback, private,
     *     link-local, CGNAT and metadata addresses answer `400 upstream_unreachable`; the check is
     *     repeated when connecting, and redirects are not followed); a development deployment may
     *     allow `http://127.0.0.1` / `localhost` upstreams. An accepted
     *     endpoint starts `pending`; three regional probes then make it `active`, when billable
     *     calls begin. `atomic_price` is a JSON integer: a string answers `400 invalid_input`.
     *     The body is limited to 4 KB.
     */
    post: operations["addSellerEndpoint"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/v1/_seller/{wallet}/endpoints/{id}": {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /**
         * @description The seller's wallet, an EVM address (`0x` + 40 hex) or a Solana address (base58).
         * @example 0x2d4C407BBe49438ED859fe965b140dcF1aaB71a9
         */
        wallet: components["parameters"]["WalletPath"];
        /**
         * @description The endpoint's id.
         * @example 12
         */
        id: components["parameters"]["EndpointIdPath"];
      };
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    /**
     * Delete a published endpoint
     * @description Soft-deletes the endpoint: it leaves the catalog, buyer calls answer
     *     `404 endpoint_not_found`, and its path is free again. Signed action `delete_endpoint`
     *     (payloadHash: keccak-256 of the id in decimal) in the headers `X-Signature` and
     *     `X-Timestamp`, or a Bearer key with scope `endpoints:write`.
     */
    delete: operations["deleteSellerEndpoint"];
    options?: never;
    head?: never;
    /**
     * Update a published endpoint
     * @description Changes any of `upstream_url`, `atomic_price`, `unit`, `desc`, `mode` (at least one).
     *     Signed action `update_endpoint` (payloadHash: keccak-256 of the compact JSON
     *     `{id, upstream_url, atomic_price, unit, desc, mode}` with the values the endpoint has
     *     after the update), or a Bearer key with scope `endpoints:write`. A new `upstream_url` is
     *     probed like a new endpoint and puts the endpoint back to `pending`. New prices apply
     *     to quotes issued after the update.
     */
    patch: operations["updateSellerEndpoint"];
    trace?: never;
  };
  "/v1/_seller/{wallet}/resume": {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /**
         * @description The seller's wallet, an EVM address (`0x` + 40 hex) or a Solana address (base58).
         * @example 0x2d4C407BBe49438ED859fe965b140dcF1aaB71a9
         */
        wallet: components["parameters"]["WalletPath"];
      };
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Resume a suspended seller
     * @description Lifts the seller's suspension after the outage is fixed: the seller becomes `active`
     *     and its suspended endpoints go back to `pending` to be probed again. Signed action
     *     `resume` (payloadHash: keccak-256 of the wallet as sent). Resuming a seller that is not
     *     suspended changes nothing and answers an empty `resumed_endpoint_ids`.
     */
    post: operations["resumeSeller"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/v1/_seller/{wallet}/stats": {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /**
         * @description The seller's wallet, an EVM address (`0x` + 40 hex) or a Solana address (base58).
         * @example 0x2d4C407BBe49438ED859fe965b140dcF1aaB71a9
         */
        wallet: components["parameters"]["WalletPath"];
      };
      cookie?: never;
    };
    /**
     * Seller statistics
     * @description Paid calls and earnings of the seller since `since` (default: the seller's
     *     registration). Query `sig` and `ts` (signed action `stats`, payloadHash: keccak-256 of
     *     the wallet as sent), or a Bearer key of that wallet with scope `read`.
     *     `paid_atomic` = what buyers paid. A seller earns only for calls its upstream served:
     *     a call that ended `upstream_5xx`, `upstream_timeout` or with an upstream 5xx passed back
     *     (paywall) is undelivered: its buyer is not refunded, the seller is not paid for it, and
     *     it is counted apart in `undelivered_calls` and `undelivered_atomic` (what its buyers
     *     paid). `fee_atomic` = the service's take on served calls, `earned_atomic` = what served
     *     calls paid minus `fee_atomic`, of which `settled_atomic` was paid out and
     *     `withdrawable_atomic` is not settled yet; so `paid_atomic` = `earned_atomic` +
     *     `fee_atomic` + `undelivered_atomic`, apart from calls still running. Per endpoint: its
     *     status, the same figures since `since`, and over the last 24 hours and 30 days also the
     *     error count and the p50/p95 latency of the upstream's successful answers (probes and
     *     calls).
     */
    get: operations["getSellerStats"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/v1/_seller/{wallet}/errors": {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /**
         * @description The seller's wallet, an EVM address (`0x` + 40 hex) or a Solana address (base58).
         * @example 0x2d4C407BBe49438ED859fe965b140dcF1aaB71a9
         */
        wallet: components["parameters"]["WalletPath"];
      };
      cookie?: never;
    };
    /**
     * Seller error counts
     * @description Counts of the errors of the seller's endpoints (failed probes, buyers refused or
     *     failed), per hour (`ts` is
     *     the start of the hour), newest first, since `since` (default: the last 7 days). Query
     *     `sig` and `ts` (signed action `errors`, payloadHash: keccak-256 of the wallet as
     *     sent), or a Bearer key of that wallet with scope `read`.
     */
    get: operations["getSellerErrors"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/v1/_seller/{wallet}/payouts": {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /**
         * @description The seller's wallet, an EVM address (`0x` + 40 hex) or a Solana address (base58).
         * @example 0x2d4C407BBe49438ED859fe965b140dcF1aaB71a9
         */
        wallet: components["parameters"]["WalletPath"];
      };
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Request a payout now
     * @description Pays the seller's withdrawable earnings now instead of at the daily settlement
     *     (00:00 UTC), in USDC on the seller's `payout_chain`, to the seller's registered wallet
     *     for that chain. The destination is never taken from the request. Signed action
     *     `request_payout` (payloadHash: keccak-256 of the wallet as sent), or a Bearer key with
     *     scope `payout:request` (then the body may be omitted). The payout is sent
     *     asynchronously: poll the account or stats to follow it (the earnings stay withdrawable
     *     until its transaction is confirmed). It covers every unsettled earning not already part
     *     of a payout; below the minimum payout (10000 atomic units by default) the answer is
     *     `409 nothing_to_pay`, while another payout of the seller is unfinished `409
     *     payout_in_progress`, and within the request interval (one hour by default) of the
     *     previous requested payout `429 rate_limited` with `Retry-After`.
     */
    post: operations["requestPayout"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/v1/_facilitator/solana": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Co-sign and broadcast a Solana USDC payment
     * @description The Solana fee-payer facilitator of the `spl-transfer` rail. Send the buyer's
     *     partially signed transaction (base64 of the wire format) whose fee payer is the
     *     service's fee payer (`extra.feePayer` of the solana `exact` entry of the quote). It must hold only a USDC
     *     `TransferChecked` to a `payTo` of the service (plus compute-budget or memo
     *     instructions) of at least the facilitator minimum (10000 atomic units by default), signed
     *     by the transfer authority; the fee payer and that authority are the only signers, the fee
     *     payer appears in no instruction, the compute-unit limit is at most 200000 and the
     *     priority fee at most 10000 lamports. The service co-signs as fee payer, broadcasts, and
     *     answers the transaction signature to put in the `X-Payment` receipt (for a request quoted
     *     before the transfer). Free (the service pays the fee).
     */
    post: operations["solanaFacilitator"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/mcp": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * MCP server (Streamable HTTP) with x402-paid tools
     * @description The catalog as a Model Context Protocol server, Streamable HTTP transport, stateless
     *     (no session id; JSON answers, no SSE stream; GET and DELETE are not offered).
     *     `tools/list` lists the built-ins and every live seller endpoint (paged with the MCP
     *     cursor), each with its input schema and its price in `_meta.x402`. Tools are paid per
     *     the x402 MCP transport (tool-result binding): an unpaid `tools/call` answers a tool
     *     result with `isError: true` and the x402 v2 `PaymentRequired` in `structuredContent`
     *     (the same accepts as the HTTP 402); the call is retried with the v2 `PaymentPayload` in
     *     `params._meta["x402/payment"]` and answers with `_meta["x402/payment-response"]`.
     *     The payment goes through the same verification, exactly-once and replay rules as the
     *     HTTP operations: a payment buys one call of that tool with those arguments. A Bearer
     *     key with the `pay` scope may name the buyer, as on the other paid operations; the
     *     payment still pays.
     */
    post: operations["mcp"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/discovery/resources": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The catalog in the x402 discovery (Bazaar) shape
     * @description Every paid endpoint (the built-ins and the live seller endpoints) for x402 discovery
     *     clients and facilitators: its URL, the accepts of one unit (per page for the PDF tools,
     *     per request otherwise), when it last changed and, in `metadata.bazaar`, the x402
     *     `bazaar` extension describing how to call it and what it answers. Free.
     */
    get: operations["listDiscoveryResources"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/discovery/search": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Search the catalog by text (x402 Bazaar search)
     * @description The discovery items (as `GET /discovery/resources`) that match `query`, best first:
     *     PostgreSQL full-text search over each resource's name (weight A), tags (B) and
     *     description (C), ranked by `ts_rank`; `query` is read as a web search (`pdf -json`,
     *     `"plain text"`, `invoice or receipt`). Pending, suspended and deleted seller endpoints
     *     never appear. Paged with the opaque `cursor` of the previous answer; at most 500 matches
     *     are ranked (`partialResults` says when there were more). Free.
     */
    get: operations["searchDiscoveryResources"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/v1/_session-token": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * How to build an X-Session-Token
     * @description What `extra.generateToken` of a `transfer-with-authorization` accept entry points at:
     *     the EIP-712 domain per EVM network, the `TransferWithAuthorization` types (EIP-3009)
     *     and an example of the `X-Session-Token` header value, which is base64url (no padding)
     *     of the JSON `SessionToken`. `to` must be the entry's `payTo` and `value` at least its
     *     `maxAmountRequired`; `validBefore` must leave time to settle, and at most
     *     `maxTimeoutSeconds` (30) may pass between the quote and the paid call.
     */
    get: operations["getSessionToken"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
}
export type webhooks = Record<string, never>;
export interface components {
  schemas: {
    WellKnownX402: {
      /** @enum {integer} */
      version: 1;
      /** @description Absolute URLs of the paid operations. */
      resources: string[];
      /** @description For agents, where the prices and the MCP tools are. */
      instructions?: string;
    };
    /** @description A JSON-RPC 2.0 message of the Model Context Protocol. */
    McpMessage: {
      /** @enum {string} */
      jsonrpc: "2.0";
    } & {
      [key: string]: unknown;
    };
    /**
     * @description An amount in USDC atomic units (6 decimals) as a decimal string.
     * @example 25000
     */
    AtomicAmount: string;
    /**
     * @description Unix time in seconds.
     * @example 1767225600
     */
    UnixSeconds: number;
    /**
     * @description A positive integer id.
     * @example 12
     */
    ResourceId: number;
    /**
     * @description A chain payments are accepted on.
     * @enum {string}
     */
    Network: "base" | "polygon" | "solana";
    /**
     * @description An EVM chain payments are accepted on.
     * @enum {string}
     */
    EvmNetwork: "base" | "polygon";
    /**
     * @description A chain a seller can be paid out on.
     * @enum {string}
     */
    PayoutChain: "base" | "polygon" | "arbitrum" | "optimism" | "avalanche" | "solana";
    /**
     * @description An API key scope: `read` (listings, stats, key prefixes), `balance:read` (account),
     *     `endpoints:write` (publish, update, delete endpoints), `pay` (buyer identity only),
     *     `payout:request` (payout to the registered address).
     * @enum {string}
     */
    Scope: "read" | "balance:read" | "endpoints:write" | "pay" | "payout:request";
    /**
     * @description An EVM address.
     * @example 0x2d4C407BBe49438ED859fe965b140dcF1aaB71a9
     */
    EvmAddress: string;
    /**
     * @description A Solana address (base58).
     * @example 9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin
     */
    SolanaAddress: string;
    /**
     * @description A wallet address, EVM (`0x` + 40 hex) or Solana (base58).
     * @example 0x2d4C407BBe49438ED859fe965b140dcF1aaB71a9
     */
    Wallet: string;
    /**
     * @description A seller's public slug, globally unique.
     * @example acme-ocr
     */
    Slug: string;
    /**
     * @description The last segment of a seller endpoint's path.
     * @example parse-receipt
     */
    PathSuffix: string;
    /**
     * @description A wallet signature of a `SellerAction`: `0x`-hex for EVM wallets (EIP-712), base58 for
     *     Solana wallets (Ed25519). See "Wallet signatures".
     * @example 0x8c1a5f0c3c0ad5c7e6e1c5b7d4f3a2b1908f7e6d5c4b3a29180f7e6d5c4b3a2918a5f0c3c0ad5c7e6e1c5b7d4f3a2b1908f7e6d5c4b3a29180f7e6d5c4b3a2911b
     */
    Signature: string;
    /**
     * @description An EVM transaction hash.
     * @example 0x9f3b2c1d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d2e3f4a5b6c7d8e9f0a1b
     */
    EvmTxHash: string;
    /**
     * @description A Solana transaction signature (base58).
     * @example 5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW
     */
    SolanaSignature: string;
    /**
     * Format: binary
     * @description Raw bytes.
     */
    BinaryFile: string;
    /** @description A multipart body with the document in the part named `file`. */
    FileUpload: {
      /**
       * Format: binary
       * @description The document.
       */
      file: string;
    };
    /**
     * @description The body of every 402: an x402 (version 1) payment quote. `accepts` always has six
     *     entries, in this order: base `exact`, base `transfer-with-authorization`, polygon
     *     `exact`, polygon `transfer-with-authorization`, solana `exact`, solana
     *     `spl-transfer`. Pay one of them.
     */
    PaymentQuote: {
      /**
       * @description The x402 protocol version, always 1.
       * @enum {integer}
       */
      x402Version: 1;
      /** @description The six ways to pay, one per chain and scheme (see the order above). */
      accepts: components["schemas"]["AcceptEntry"][];
      /**
       * @description Why the call was not run:
       *     * `X-PAYMENT header is required`: no proof was sent (the first call). Some x402
       *       servers spell it `payment_required`; clients must treat both alike.
       *     * `payment_required`: same meaning as above.
       *     * `invalid_payment`: the `X-Payment` header cannot be decoded or does not match the
       *       receipt schema, or names an unsupported scheme or network; or the transaction
       *       failed on chain, or moved USDC through an EIP-3009 authorization (present the
       *       authorization instead of its transaction hash).
       *     * `payment_unconfirmed`: the transaction is not visible on-chain yet (after about
       *       10 s of polling); retry the same `X-Payment` after a block.
       *     * `amount_mismatch`: less than `maxAmountRequired` was paid.
       *     * `wrong_recipient`: paid to an address other than `payTo`.
       *     * `wrong_asset`: not the USDC contract or mint of `asset`.
       *     * `quote_expired`: the payment came more than `maxTimeoutSeconds` after the quote,
       *       or the request was not quoted before the payment was made (a transaction hash or
       *       Solana signature pays only for a request quoted before its block); the payment
       *       is not refunded.
       *     * `authorization_invalid`: the EIP-3009 authorization (`X-Session-Token`, or an
       *       `exact` receipt with `authorization`) has a wrong signature, is outside its
       *       validity window, its nonce was used for something other than this payment, the
       *       payer's balance (less its authorizations being settled) does not cover it, or it
       *       could not be settled.
       * @enum {string}
       */
      error: "X-PAYMENT header is required" | "payment_required" | "invalid_payment" | "payment_unconfirmed" | "amount_mismatch" | "wrong_recipient" | "wrong_asset" | "quote_expired" | "authorization_invalid";
      /** @description A human-readable explanation. */
      message?: string;
      /** @description What to do next. */
      hint?: string;
    };
    /** @description One way to pay a quote. Every field is present; `extra` depends on `scheme`. */
    AcceptEntry: components["schemas"]["ExactAcceptEntry"] | components["schemas"]["TransferWithAuthorizationAcceptEntry"] | components["schemas"]["SplTransferAcceptEntry"];
    /**
     * @description Pay on-chain, then send the receipt in `X-Payment`: an ERC-20 `transfer` on an EVM
     *     chain, an SPL transfer on Solana.
     */
    ExactAcceptEntry: {
      /**
       * @description discriminator enum property added by openapi-typescript
       * @enum {string}
       */
      scheme: "exact";
      network: components["schemas"]["Network"];
      maxAmountRequired: components["schemas"]["AtomicAmount"];
      /** @description The USDC contract (EVM) or mint (Solana) address. */
      asset: string;
      /** @description The service's receiving address on this chain. */
      payTo: string;
      /**
       * Format: uri
       * @description The full URL of the called endpoint.
       */
      resource: string;
      /** @description What the payment buys. */
      description: string;
      /** @description The media type of the paid answer. */
      mimeType: string;
      /**
       * @description Seconds the quote stays valid.
       * @enum {integer}
       */
      maxTimeoutSeconds: 60;
      extra: components["schemas"]["ExactExtra"];
    };
    /**
     * @description Gasless EVM rail: sign an EIP-3009 authorization and send it as `X-Session-Token`;
     *     the service submits it and pays the gas.
     */
    TransferWithAuthorizationAcceptEntry: {
      /**
       * @description discriminator enum property added by openapi-typescript
       * @enum {string}
       */
      scheme: "transfer-with-authorization";
      network: components["schemas"]["EvmNetwork"];
      maxAmountRequired: components["schemas"]["AtomicAmount"];
      /** @description The USDC contract address. */
      asset: string;
      /** @description The service's receiving address on this chain (the authorization's `to`). */
      payTo: string;
      /**
       * Format: uri
       * @description The full URL of the called endpoint.
       */
      resource: string;
      /** @description What the payment buys. */
      description: string;
      /** @description The media type of the paid answer. */
      mimeType: string;
      /**
       * @description Seconds the quote stays valid.
       * @enum {integer}
       */
      maxTimeoutSeconds: 30;
      extra: components["schemas"]["TransferWithAuthorizationExtra"];
    };
    /**
     * @description Solana rail: partially sign a USDC `TransferChecked` whose fee payer is the service's
     *     (`extra.feePayer` of the solana `exact` entry), let
     *     `POST /v1/_facilitator/solana` co-sign and broadcast it, then send the receipt in
     *     `X-Payment`.
     */
    SplTransferAcceptEntry: {
      /**
       * @description discriminator enum property added by openapi-typescript
       * @enum {string}
       */
      scheme: "spl-transfer";
      /** @enum {string} */
      network: "solana";
      maxAmountRequired: components["schemas"]["AtomicAmount"];
      /** @description The USDC mint address. */
      asset: string;
      /** @description The service's receiving address (owner of the destination token account). */
      payTo: string;
      /**
       * Format: uri
       * @description The full URL of the called endpoint.
       */
      resource: string;
      /** @description What the payment buys. */
      description: string;
      /** @description The media type of the paid answer. */
      mimeType: string;
      /**
       * @description Seconds the quote stays valid.
       * @enum {integer}
       */
      maxTimeoutSeconds: 60;
      extra: components["schemas"]["SplTransferExtra"];
    };
    /**
     * @description `extra` of an `exact` entry. `totalEstimate` = `perPagePrice` x `estimatedPages` =
     *     `maxAmountRequired`. An endpoint priced per request counts one page.
     */
    ExactExtra: {
      /** @description Price of one page (or of the request), atomic units. */
      perPagePrice: number;
      /** @description Pages counted in the document (1 for per-request prices). */
      estimatedPages: number;
      /** @description The total price, atomic units. */
      totalEstimate: number;
      /**
       * @description EVM only, the token's EIP-712 domain name, for reference x402 clients that sign an EIP-3009 authorization.
       * @example USD Coin
       */
      name?: string;
      /**
       * @description EVM only, the token's EIP-712 domain version.
       * @example 2
       */
      version?: string;
      /** @description Solana only, the service's fee payer, for reference x402 clients that send a partially signed transaction. */
      feePayer?: string;
    };
    /** @description `extra` of a `transfer-with-authorization` entry. */
    TransferWithAuthorizationExtra: {
      /**
       * @description The header that carries the signed authorization.
       * @enum {string}
       */
      sessionHeader: "X-Session-Token";
      /**
       * Format: uri
       * @description URL of the token instructions (`GET /v1/_session-token`).
       */
      generateToken: string;
      /**
       * @description The service submits the authorization and pays the gas.
       * @enum {string}
       */
      gasPolicy: "service-pays";
      /**
       * @description The token's EIP-712 domain name.
       * @example USD Coin
       */
      name?: string;
      /**
       * @description The token's EIP-712 domain version.
       * @example 2
       */
      version?: string;
    };
    /** @description `extra` of an `spl-transfer` entry. */
    SplTransferExtra: {
      /**
       * @description The facilitator broadcasts the transaction.
       * @enum {string}
       */
      facilitatorBroadcast: "true";
      /**
       * @description The facilitator pays the transaction fee.
       * @enum {string}
       */
      feePayer: "facilitator";
      /**
       * @description The facilitator pays the fee.
       * @enum {string}
       */
      gasPolicy: "facilitator-pays";
      /**
       * Format: uri
       * @description URL of `POST /v1/_facilitator/solana`. The transaction's fee payer is the address in
       *     `extra.feePayer` of the solana `exact` entry.
       */
      facilitatorUrl?: string;
    };
    /**
     * @description The decoded `X-Payment` header. The header value is base64url (alphabet `-_`, no `=`
     *     padding) of this JSON object; standard base64 is also accepted. `payload` is one of:
     *     * EVM transfer (`exact`): `{tx_hash}`.
     *     * Solana transfer (`spl-transfer`): `{signature, from, to, amount, mint}`.
     *     * Reference x402 EVM (`exact`): `{signature, authorization}`, an EIP-3009
     *       authorization the service settles.
     *     * Reference x402 Solana (`exact`): `{transaction}`, a partially signed transaction the
     *       service co-signs as fee payer and broadcasts.
     * @example {
     *       "x402Version": 1,
     *       "scheme": "exact",
     *       "network": "base",
     *       "payload": {
     *         "tx_hash": "0x9f3b2c1d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d2e3f4a5b6c7d8e9f0a1b"
     *       }
     *     }
     */
    PaymentReceipt: {
      /** @enum {integer} */
      x402Version: 1;
      /**
       * @description `exact` (EVM, or reference x402 Solana) or `spl-transfer` (Solana).
       * @enum {string}
       */
      scheme: "exact" | "spl-transfer";
      network: components["schemas"]["Network"];
      payload: components["schemas"]["EvmTransferPayload"] | components["schemas"]["SolanaTransferPayload"] | components["schemas"]["EvmAuthorizationPayload"] | components["schemas"]["SolanaTransactionPayload"];
    };
    /** @description Receipt of an ERC-20 transfer on an EVM chain. */
    EvmTransferPayload: {
      tx_hash: components["schemas"]["EvmTxHash"];
    };
    /**
     * @description Receipt of a USDC transfer on Solana.
     * @example {
     *       "signature": "5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW",
     *       "from": "7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU",
     *       "to": "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin",
     *       "amount": "20000",
     *       "mint": "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"
     *     }
     */
    SolanaTransferPayload: {
      signature: components["schemas"]["SolanaSignature"];
      /** @description The payer's wallet (owner of the source token account). */
      from: string;
      /** @description The `payTo` of the quote. */
      to: string;
      amount: components["schemas"]["AtomicAmount"];
      /** @description The USDC mint. */
      mint: string;
    };
    /** @description Reference x402 EVM payload, an EIP-3009 `TransferWithAuthorization` signed by the payer. */
    EvmAuthorizationPayload: {
      /** @description The payer's EIP-712 signature of the authorization. */
      signature: string;
      authorization: components["schemas"]["Eip3009Authorization"];
    };
    /** @description The fields of an EIP-3009 `TransferWithAuthorization`; numbers as decimal strings. */
    Eip3009Authorization: {
      from: components["schemas"]["EvmAddress"];
      to: components["schemas"]["EvmAddress"];
      value: components["schemas"]["AtomicAmount"];
      /** @description Unix seconds, decimal string. */
      validAfter: string;
      /** @description Unix seconds, decimal string. */
      validBefore: string;
      /** @description A random bytes32. */
      nonce: string;
    };
    /** @description Reference x402 Solana payload, a partially signed transaction. */
    SolanaTransactionPayload: {
      /** @description Base64 of the partially signed transaction (wire format). */
      transaction: string;
    };
    /**
     * @description The decoded `X-Session-Token` header: an EIP-3009 `TransferWithAuthorization` of USDC
     *     signed by the payer (EIP-712 domain and types at `GET /v1/_session-token`). The header
     *     value is base64url (no padding) of this JSON object.
     * @example {
     *       "network": "base",
     *       "from": "0x2d4C407BBe49438ED859fe965b140dcF1aaB71a9",
     *       "to": "0x1111111111111111111111111111111111111111",
     *       "value": "20000",
     *       "validAfter": "0",
     *       "validBefore": "1767225660",
     *       "nonce": "0x7c1f5e3a9b2d4c6e8f0a1b3c5d7e9f1a2b4c6d8e0f1a3b5c7d9e1f2a4b6c8d0e",
     *       "signature": "0x8c1a5f0c3c0ad5c7e6e1c5b7d4f3a2b1908f7e6d5c4b3a29180f7e6d5c4b3a2918a5f0c3c0ad5c7e6e1c5b7d4f3a2b1908f7e6d5c4b3a29180f7e6d5c4b3a2911b"
     *     }
     */
    SessionToken: {
      network: components["schemas"]["EvmNetwork"];
      from: components["schemas"]["EvmAddress"];
      to: components["schemas"]["EvmAddress"];
      value: components["schemas"]["AtomicAmount"];
      /** @description Unix seconds, decimal string. */
      validAfter: string;
      /** @description Unix seconds, decimal string. */
      validBefore: string;
      /** @description A random bytes32. */
      nonce: string;
      /** @description The payer's EIP-712 signature. */
      signature: string;
    };
    /**
     * @description The decoded `X-PAYMENT-RESPONSE` header (base64 of this JSON object).
     * @example {
     *       "success": true,
     *       "transaction": "0x9f3b2c1d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d2e3f4a5b6c7d8e9f0a1b",
     *       "network": "base",
     *       "payer": "0x2d4C407BBe49438ED859fe965b140dcF1aaB71a9"
     *     }
     */
    PaymentResponse: {
      /** @description Always `true` on a paid answer. */
      success: boolean;
      /** @description The transaction hash (EVM) or signature (Solana) that paid the call. */
      transaction: string;
      network: components["schemas"]["Network"];
      /** @description The paying wallet. */
      payer: string;
    };
    /** @description How to build an `X-Session-Token`. */
    SessionTokenInstructions: {
      /** @enum {string} */
      header: "X-Session-Token";
      /** @description How the header value is encoded. */
      format: string;
      /** @description The USDC EIP-712 domain per EVM network. */
      domains: {
        base: components["schemas"]["Eip712Domain"];
        polygon: components["schemas"]["Eip712Domain"];
      };
      /** @description The EIP-712 types. */
      types: {
        TransferWithAuthorization: components["schemas"]["Eip712TypedField"][];
      } & {
        [key: string]: components["schemas"]["Eip712TypedField"][];
      };
      /** @enum {string} */
      primaryType: "TransferWithAuthorization";
      /** @description How to sign and send the token, in words. */
      description?: string;
      /** @description The service's receiving address per EVM network (the authorization's `to`). */
      payTo?: {
        base?: components["schemas"]["EvmAddress"];
        polygon?: components["schemas"]["EvmAddress"];
      };
      /**
       * @description What a decoded token looks like (the `SessionToken` fields); values in angle brackets
       *     are placeholders.
       */
      example: {
        network: string;
        from: string;
        to: string;
        value: string;
        validAfter: string;
        validBefore: string;
        nonce: string;
        signature: string;
      };
    };
    /** @description An EIP-712 domain. */
    Eip712Domain: {
      /** @example USD Coin */
      name: string;
      /** @example 2 */
      version: string;
      /** @example 8453 */
      chainId: number;
      verifyingContract: components["schemas"]["EvmAddress"];
    };
    /** @description A field of an EIP-712 struct type. */
    Eip712TypedField: {
      name: string;
      type: string;
    };
    /** @description A partially signed Solana transaction to co-sign and broadcast. */
    FacilitatorRequest: {
      /** @description Base64 of the transaction in wire format, signed by the buyer. */
      transaction: string;
    };
    DiscoveryList: {
      /** @enum {integer} */
      x402Version: 1;
      items: components["schemas"]["DiscoveredResource"][];
      pagination: {
        limit: number;
        offset: number;
        total: number;
      };
    };
    /**
     * @description How a seller endpoint has served, from the database (the same on every instance),
     *     recomputed at most every 30 s. `success_rate_7d`: paid calls delivered over paid calls
     *     that ended (delivered or undelivered, the ledger's delivery) in 7 days. Latency: p50 and
     *     p95 of the upstream's successful answers (paid calls and probes) over 24 h. Uptime: the
     *     share of probes that succeeded over 24 h and 7 days. `null` where there is no data.
     */
    Reliability: {
      success_rate_7d: number | null;
      paid_calls_7d: number;
      p50_latency_ms: number | null;
      p95_latency_ms: number | null;
      uptime_24h: number | null;
      uptime_7d: number | null;
      /**
       * Format: date-time
       * @description When the figures were computed.
       */
      as_of: string;
    };
    DiscoverySearchResult: {
      /** @enum {integer} */
      x402Version: 1;
      resources: components["schemas"]["DiscoveredResource"][];
      /** @description True when more than 500 resources matched and only the best 500 were ranked. */
      partialResults: boolean;
      pagination: {
        limit: number;
        /** @description Pass as `cursor` for the next page; null on the last page. */
        cursor: string | null;
      };
      /** @description The same cursor as `pagination.cursor`, when there is a next page. */
      cursor?: string;
    };
    DiscoveredResource: {
      /**
       * Format: uri
       * @description Full URL of the paid endpoint.
       */
      resource: string;
      /**
       * @description `mcp` (asked with `type=mcp`): the entry as a tool of the paid MCP server at `/mcp`.
       * @enum {string}
       */
      type: "http" | "mcp";
      /** @description Type `mcp` only. The tool's name in `tools/list`. */
      toolName?: string;
      /** @description Type `mcp` only. The tool's input schema (JSON Schema). */
      inputSchema?: Record<string, never>;
      /** @enum {integer} */
      x402Version: 1;
      /** @description The accepts of one unit (empty when payments are not configured). */
      accepts: components["schemas"]["AcceptEntry"][];
      /**
       * Format: date-time
       * @description When the resource last changed (ISO 8601, as Bazaar 2.27).
       */
      lastUpdated: string;
      description: string;
      mimeType: string;
      /** @description The service that sells it (`paycall` for the built-ins, the seller's slug otherwise). */
      serviceName: string;
      tags: string[];
      /** @description The path of the resource on this service. */
      routeTemplate: string;
      extensions: {
        /** @description The x402 `bazaar` extension `{info, schema}` (the same as `metadata.bazaar`). */
        bazaar: Record<string, never>;
      };
      metadata: {
        description: string;
        seller: string;
        /** @description Price per unit, USDC atomic units. */
        price: string;
        unit: string;
        /** @enum {string} */
        mode: "builtin" | "paywall" | "proxy";
        status: string;
        /** @description The x402 `bazaar` extension `{info, schema}`. */
        bazaar: {
          info: Record<string, never>;
          schema: Record<string, never>;
        };
        /** @description Seller endpoints only. Paid-call success rate, latency and uptime; `null` until the figures include it. */
        reliability?: components["schemas"]["Reliability"] | null;
      };
    };
    /** @description The broadcast transaction. */
    FacilitatorResult: {
      signature: components["schemas"]["SolanaSignature"];
      /** @enum {string} */
      network: "solana";
      /** @description The buyer's wallet that signed the transfer. */
      payer: string;
    };
    /** @description Result of `pdfText`. */
    PdfTextResult: {
      /** @description The text of the document, pages separated by form feeds (`\f`). */
      text: string;
      /** @description The page count. */
      pages: number;
    };
    /** @description Result of `pdfMd`. `pages` is the page count; `page_count` repeats it and is deprecated. */
    PdfMdResult: {
      /** @description The document as Markdown. Each page starts with the anchor `<!-- page N -->` (inside a paragraph when a page break cuts it; the `page_anchors` query parameter chooses the form or turns them off); running headers, footers and page numbers are left out; headings come from the document's font sizes (and bold numbered lines, and a bold title line that opens a page, as on slides); footnotes follow their page's text, and a paragraph that runs past them stays whole; code in a monospaced font is fenced; tables (ruled or aligned by whitespace) are pipe tables, one table where a page break cuts one; the table of contents is a list. A page without a text layer is the comment `<!-- page N: no text layer (image-only or unreadable page) -->`. */
      markdown: string;
      /** @description The page count. */
      pages: number;
      /**
       * @deprecated
       * @description Deprecated: the same number as `pages`, which is the one to read. Still sent so clients that read it keep working; it will be removed in a later version of the API.
       */
      page_count: number;
    };
    /** @description Result of `pdfJson`: the structure pdf-md renders, as data. Each page's blocks (kind heading, paragraph, list, code, table, header, footer, with level, box and page), its tables with their rows and cells, and the document's outline (bookmarks). */
    PdfJsonResult: {
      /** @description One entry per page, in order. */
      pages: components["schemas"]["PdfJsonPage"][];
      /** @description The document's outline (its bookmarks), depth first; empty when it has none. */
      outline: components["schemas"]["PdfJsonOutlineEntry"][];
    };
    /** @description One bookmark of the outline. */
    PdfJsonOutlineEntry: {
      title: string;
      /** @description 1 for a top-level bookmark, 2 for its children, and so on. */
      level: number;
      /** @description The page the bookmark points to, from 1; `null` when it points nowhere in the document. */
      page: number | null;
    };
    /** @description A table of the page: ruled (drawn cell borders, or full-width rules between rows) or aligned by whitespace (columns found from x-positions across rows). Its box is given as the blocks' are; its text is also in the page's blocks, of kind `table`. */
    PdfJsonTable: {
      x: number;
      y: number;
      width: number;
      height: number;
      /** @description Cell texts, row by row, left to right; a spanning cell's text in its first position and '' in the others. */
      rows: string[][];
      /** @description When some cells span rows or columns (the rules say so): the cells as drawn, each row listing the cells that start in it. `null` when no cell spans (`rows` says it all). */
      cells: components["schemas"]["PdfJsonCell"][][] | null;
    };
    PdfJsonCell: {
      text: string;
      /** @description The column where the cell starts, from 0. */
      col: number;
      colspan: number;
      rowspan: number;
    };
    /** @description A page, its text blocks and its tables. Lengths are PDF points (1/72 inch). */
    PdfJsonPage: {
      /** @description The page's tables, top to bottom. */
      tables: components["schemas"]["PdfJsonTable"][];
      /** @description The page number, from 1. */
      page: number;
      /** @description Page width. */
      width: number;
      /** @description Page height. */
      height: number;
      /** @description The text blocks in reading order. */
      blocks: components["schemas"]["PdfTextBlock"][];
    };
    /** @description A block of text (a paragraph, a heading, a list item run, a code listing, table text or page furniture) with its box: `x`, `y`, `width`, `height` from the top-left corner of the page. Every character of the page is in some block, furniture included (marked `header` or `footer`), so the blocks' words are pdf-text's words. Kinds are judged page by page (long documents are split across workers and the answer does not depend on the split): furniture is what one page shows as such (page numbers set apart at the top or bottom), and heading levels rank the page's own font sizes. pdf-md judges across the document. */
    PdfTextBlock: {
      text: string;
      x: number;
      y: number;
      width: number;
      height: number;
      font_size: number;
      /** @description The font's name, `null` when the PDF does not name it. */
      font_name: string | null;
      /**
       * @description What the block is. `header` and `footer` are page furniture (running headers and footers, page numbers); `code` is set in a monospaced font; `table` is text of a table found from aligned columns.
       * @enum {string}
       */
      kind: "heading" | "paragraph" | "list" | "code" | "table" | "header" | "footer";
      /** @description For a heading, its level from 1 (largest font size); `null` for other kinds. */
      level: number | null;
      /** @description The page the block is on, from 1. */
      page: number;
    };
    /**
     * @description A decimal number as a string (`.` as the decimal separator), in the document's currency units.
     * @example 142.80
     */
    DecimalString: string;
    NullableDecimalString: components["schemas"]["DecimalString"] | null;
    /**
     * @description Result of `invoiceExtract`. A field that could not be found is `null` (`items` is then
     *     empty); `confidence` scores each field from 0 (guess) to 1 (certain).
     */
    InvoiceResult: {
      /** @description The issuer's name. */
      vendor: string | null;
      /** @description The invoice number as printed. */
      invoice_number: string | null;
      /** @description The invoice date (ISO 8601, `YYYY-MM-DD`). */
      date: string | null;
      /** @description ISO 4217 currency code. */
      currency: string | null;
      /** @description The total amount due, VAT included. */
      amount: components["schemas"]["NullableDecimalString"];
      /** @description The VAT, when the invoice shows one. */
      vat: components["schemas"]["InvoiceVat"] | null;
      /** @description The line items. */
      items: components["schemas"]["InvoiceItem"][];
      confidence: components["schemas"]["InvoiceConfidence"];
    };
    /** @description VAT of an invoice. */
    InvoiceVat: {
      /** @description The rate in percent (`"19"` for 19 %). */
      rate: components["schemas"]["NullableDecimalString"];
      /** @description The VAT amount. */
      amount: components["schemas"]["NullableDecimalString"];
    };
    /** @description A line item of an invoice. */
    InvoiceItem: {
      description: string | null;
      quantity: components["schemas"]["NullableDecimalString"];
      unit_price: components["schemas"]["NullableDecimalString"];
      amount: components["schemas"]["NullableDecimalString"];
    };
    /** @description Confidence per field, from 0 to 1. */
    InvoiceConfidence: {
      vendor: components["schemas"]["Confidence"];
      invoice_number: components["schemas"]["Confidence"];
      date: components["schemas"]["Confidence"];
      currency: components["schemas"]["Confidence"];
      amount: components["schemas"]["Confidence"];
      vat: components["schemas"]["Confidence"];
      items: components["schemas"]["Confidence"];
    };
    /** @description A confidence score from 0 to 1. */
    Confidence: number;
    /** @description The service and its live catalog. */
    Meta: {
      /**
       * @description The service name (also the EIP-712 domain name of wallet signatures).
       * @example paycall
       */
      service: string;
      /**
       * @description The service (and contract) version.
       * @example 1.0.0
       */
      version: string;
      /** @enum {integer} */
      x402Version: 1;
      /** @description The chains payments are accepted on. */
      networks: components["schemas"]["Network"][];
      /**
       * @description The Ed25519 public key (base58) the service signs forwarded calls with; the same key
       *     as `forward_signing.public_key`. `null` while no forwarding key is configured.
       */
      signing_public_key: string | null;
      /** @description How to verify forwarded calls (RFC 9421 HTTP Message Signatures, label `paycall`). */
      forward_signing?: {
        /** @description The `keyid` parameter of the forwarded calls' `Signature-Input`. */
        keyid: string;
        /** @enum {string} */
        alg: "ed25519";
        /** @description The raw 32-byte Ed25519 public key, base64url (a JWK's `x`). */
        public_key: string;
      } | null;
      /** @description The paid endpoints. */
      endpoints: components["schemas"]["MetaEndpoint"][];
    };
    /** @description A catalog entry. */
    MetaEndpoint: {
      /**
       * @description The path to call.
       * @example /v1/pdf-md
       */
      path: string;
      /** @description `paycall` for the built-in tools, otherwise the seller's wallet. */
      seller: string;
      /** @description The price of one `unit`, atomic units. */
      price: components["schemas"]["AtomicAmount"];
      /** @description What the price counts (`page`, `request`, or the seller's unit). */
      unit: string;
      description: string;
      /** @description The chains this endpoint can be paid on. */
      networks: components["schemas"]["Network"][];
      /**
       * @description The HTTP method to call it with.
       * @enum {string}
       */
      method: "POST";
      /**
       * @description `builtin` for the service's tools; the seller's mode otherwise.
       * @enum {string}
       */
      mode: "builtin" | "paywall" | "proxy";
      status: components["schemas"]["EndpointStatus"];
      /** @description Seller endpoints only. Median upstream latency over the last 24 h (probes and calls); `null` without data. */
      p50_latency_ms?: number | null;
      /** @description Seller endpoints only. 99th percentile of the upstream latency over the last 24 h; `null` without data. */
      p99_latency_ms?: number | null;
      /** @description Seller endpoints only. Share of upstream answers that succeeded over the last 24 h (0 to 1); `null` without data. */
      success_rate_24h?: number | null;
      /** @description Seller endpoints only. Paid-call success rate, latency and uptime; `null` until the figures include it. */
      reliability?: components["schemas"]["Reliability"] | null;
    };
    /**
     * @description The result of one check. Nothing else is public: why a check failed, addresses and
     *     balances are in the operator listener's `GET /health/details`.
     */
    HealthCheck: {
      ok: boolean;
      /** @description How long the check took. */
      latency_ms: number;
      /** @description RPC checks, the latest block number (slot on Solana), as a decimal string. */
      block_number?: string;
    };
    /** @description Health of the service. */
    Health: {
      /**
       * @description `ok`: every check passes. `degraded`: a chain or facilitator check fails (calls on
       *     that chain may fail). `down`: the database is unreachable (HTTP 503).
       * @enum {string}
       */
      status: "ok" | "degraded" | "down";
      /** @example 1.0.0 */
      version: string;
      checks: {
        database: components["schemas"]["HealthCheck"];
        rpc: {
          base: components["schemas"]["HealthCheck"];
          polygon: components["schemas"]["HealthCheck"];
          solana: components["schemas"]["HealthCheck"];
        };
        facilitators: {
          evm_relayer: components["schemas"]["HealthCheck"];
          solana_fee_payer: components["schemas"]["HealthCheck"];
        };
      };
    };
    /** @description A request for a key, signed with action `issue_api_key`. */
    IssueApiKeyRequest: {
      wallet: components["schemas"]["Wallet"];
      /** @description A name for the key (max 64 characters), or `null`. */
      label: string | null;
      /** @description The scopes to grant. */
      scopes: components["schemas"]["Scope"][];
      signature: components["schemas"]["Signature"];
      timestamp: components["schemas"]["UnixSeconds"];
    };
    /** @description A new key, with its secret (shown once). */
    IssuedApiKey: {
      /** @description The secret key, `<prefix>_live_<random>` (`<random>`: 43 base64url characters, 256 bits). Returned only here. */
      api_key: string;
      /** @description The leading characters of the key, shown in listings. */
      key_prefix: string;
      scopes: components["schemas"]["Scope"][];
      /** @description A notice that the key is returned only once. */
      warning: string;
      id: components["schemas"]["ResourceId"];
      label: string | null;
      created_at: components["schemas"]["UnixSeconds"];
      /** @description When the key stops working, or `null` (no expiry). */
      expires_at: components["schemas"]["UnixSeconds"] | null;
    };
    /** @description A key record, without its secret. */
    ApiKey: {
      id: components["schemas"]["ResourceId"];
      key_prefix: string;
      label: string | null;
      scopes: components["schemas"]["Scope"][];
      created_at: components["schemas"]["UnixSeconds"];
      last_used_at: components["schemas"]["UnixSeconds"] | null;
      expires_at: components["schemas"]["UnixSeconds"] | null;
      revoked_at: components["schemas"]["UnixSeconds"] | null;
    };
    /** @description The keys of a wallet. */
    ApiKeyList: {
      wallet: components["schemas"]["Wallet"];
      keys: components["schemas"]["ApiKey"][];
    };
    /** @description A revoked key. */
    RevokedApiKey: {
      id: components["schemas"]["ResourceId"];
      revoked_at: components["schemas"]["UnixSeconds"];
    };
    /** @description Balances of a wallet as seller and buyer. */
    Account: {
      wallet: components["schemas"]["Wallet"];
      /** @description Total net seller earnings. */
      earned_atomic: components["schemas"]["AtomicAmount"];
      /** @description Total USDC spent as a buyer. */
      spent_atomic: components["schemas"]["AtomicAmount"];
      /** @description Net seller earnings not settled yet. */
      withdrawable_atomic: components["schemas"]["AtomicAmount"];
      /** @description Net seller earnings already paid out (confirmed payouts); `earned_atomic` = `settled_atomic` + `withdrawable_atomic`. */
      settled_atomic?: components["schemas"]["AtomicAmount"];
      /** @description The chain payouts are sent on (for a wallet that is not a seller, the wallet's own chain). */
      payout_chain: components["schemas"]["PayoutChain"];
      /** @description Published endpoints (not deleted). */
      endpoints_count: number;
      /** @description Present only when called with a Bearer key, its scopes. */
      scopes?: components["schemas"]["Scope"][];
      /** @description Present for a seller: its latest payouts, newest first (daily settlement and requested ones). `status` `sent` is confirmed on chain; a `pending` payout with `attempts` and an `error` is being retried with back-off. */
      payouts?: components["schemas"]["Payout"][];
    };
    /** @description A body that carries only a wallet signature of the operation's action. */
    SignedRequest: {
      signature: components["schemas"]["Signature"];
      timestamp: components["schemas"]["UnixSeconds"];
    };
    /**
     * @description One of the two registration shapes: **shape A** (`primary_wallet`, `wallets`,
     *     `signatures`, `slug`, `ts`, optional `payout_chain`) or **shape B** (`wallet`, `slug`,
     *     `signature`, `timestamp`). The fields of both are listed here and `oneOf` says which
     *     combinations are accepted, so that a malformed field is reported on its own.
     */
    RegisterSellerRequest: {
      /** @description Shape A. The seller's main wallet, one of `wallets`. */
      primary_wallet?: components["schemas"]["Wallet"];
      wallets?: components["schemas"]["ChainWallets"];
      signatures?: components["schemas"]["ChainSignatures"];
      slug: components["schemas"]["Slug"];
      /** @description Shape A. The signed timestamp. */
      ts?: components["schemas"]["UnixSeconds"];
      /** @description Shape A, optional. Default the chain of the primary wallet. */
      payout_chain?: components["schemas"]["PayoutChain"];
      /** @description Shape B. The seller's wallet. */
      wallet?: components["schemas"]["Wallet"];
      /** @description Shape B. The wallet's signature of action `register`. */
      signature?: components["schemas"]["Signature"];
      /** @description Shape B. The signed timestamp. */
      timestamp?: components["schemas"]["UnixSeconds"];
    } & (components["schemas"]["RegisterSellerMultiChain"] | components["schemas"]["RegisterSellerSingleWallet"]);
    /** @description One wallet address per chain. */
    ChainWallets: {
      base?: components["schemas"]["EvmAddress"];
      polygon?: components["schemas"]["EvmAddress"];
      arbitrum?: components["schemas"]["EvmAddress"];
      optimism?: components["schemas"]["EvmAddress"];
      avalanche?: components["schemas"]["EvmAddress"];
      solana?: components["schemas"]["SolanaAddress"];
    };
    /** @description For each chain of `wallets`, that wallet's signature of action `register` over the shape-A payload (see `registerSeller`). */
    ChainSignatures: {
      base?: components["schemas"]["Signature"];
      polygon?: components["schemas"]["Signature"];
      arbitrum?: components["schemas"]["Signature"];
      optimism?: components["schemas"]["Signature"];
      avalanche?: components["schemas"]["Signature"];
      solana?: components["schemas"]["Signature"];
    };
    /**
     * Shape A
     * @description Shape A: one wallet per receiving chain; every wallet of `wallets` signs action
     *     `register` over the compact JSON of `{slug, wallets, primary_wallet, payout_chain}`
     *     (`signatures`, same keys; see `registerSeller`). `primary_wallet` must be one of `wallets`.
     *     The fields of shape B are not allowed with it. (The fields' schemas are those of
     *     `RegisterSellerRequest`.)
     */
    RegisterSellerMultiChain: {
      primary_wallet: unknown;
      wallets: unknown;
      signatures: unknown;
      slug?: unknown;
      ts: unknown;
      payout_chain?: unknown;
      wallet?: unknown;
      signature?: unknown;
      timestamp?: unknown;
    };
    /**
     * Shape B
     * @description Shape B, a single wallet. The fields of shape A are not allowed with it. (The fields'
     *     schemas are those of `RegisterSellerRequest`.)
     */
    RegisterSellerSingleWallet: {
      wallet: unknown;
      slug?: unknown;
      signature: unknown;
      timestamp: unknown;
      primary_wallet?: unknown;
      wallets?: unknown;
      signatures?: unknown;
      ts?: unknown;
      payout_chain?: unknown;
    };
    /** @description A seller. */
    Seller: {
      /** @description The primary wallet. */
      wallet: components["schemas"]["Wallet"];
      slug: components["schemas"]["Slug"];
      wallets: components["schemas"]["ChainWallets"];
      payout_chain: components["schemas"]["PayoutChain"];
      /**
       * @description `suspended` after persistent upstream failures, until resumed.
       * @enum {string}
       */
      status: "active" | "suspended";
      created_at: components["schemas"]["UnixSeconds"];
    };
    /** @description The seller after a resume, with the endpoints put back to `pending`. */
    ResumedSeller: components["schemas"]["Seller"] & {
      /** @description Ids of the endpoints that were suspended and are now `pending`. */
      resumed_endpoint_ids: components["schemas"]["ResourceId"][];
    };
    /**
     * @description `paywall` (take rate 3 %): one forward, the upstream's answer as it is. `proxy` (take
     *     rate 4 %): streamed reverse proxy with timeout and retries.
     * @enum {string}
     */
    EndpointMode: "paywall" | "proxy";
    /**
     * @description `pending`: published, probes not passed yet. `active`: billable. `degraded`: repeated
     *     upstream failures. `suspended`: buyer calls answer `410 endpoint_suspended`.
     * @enum {string}
     */
    EndpointStatus: "pending" | "active" | "degraded" | "suspended";
    /**
     * @description A new paid endpoint. `signature` and `timestamp` are required unless a Bearer key with
     *     scope `endpoints:write` is sent.
     */
    AddEndpointRequest: {
      path_suffix: components["schemas"]["PathSuffix"];
      /**
       * Format: uri
       * @description A live HTTPS URL that answers 200 with JSON when probed.
       * @example https://api.acme-ocr.example/v2/receipt
       */
      upstream_url: string;
      /**
       * @description The price per call in atomic units, a JSON integer (not a string).
       * @example 20000
       */
      atomic_price: number;
      /**
       * @description What one call counts as.
       * @example request
       */
      unit: string;
      /** @description A description for the catalog. */
      desc: string;
      mode: components["schemas"]["EndpointMode"];
      /** @description Any JSON value, posted to the upstream by the probes (default `{}`). */
      sample_body?: unknown;
      /**
       * Format: email
       * @description Where to send alerts about the endpoint's health.
       */
      alert_email?: string;
      signature?: components["schemas"]["Signature"];
      timestamp?: components["schemas"]["UnixSeconds"];
    };
    /**
     * @description The fields to change (at least one of `upstream_url`, `atomic_price`, `unit`, `desc`,
     *     `mode`). `signature` and `timestamp` are required unless a Bearer key with scope
     *     `endpoints:write` is sent.
     */
    UpdateEndpointRequest: {
      /** Format: uri */
      upstream_url?: string;
      atomic_price?: number;
      unit?: string;
      desc?: string;
      mode?: components["schemas"]["EndpointMode"];
      signature?: components["schemas"]["Signature"];
      timestamp?: components["schemas"]["UnixSeconds"];
    };
    /** @description The result of a probe of the upstream. */
    ProbeResult: {
      at: components["schemas"]["UnixSeconds"];
      /** @description The probe region (`publish` for the probe made when publishing). */
      region: string;
      /** @description 200 with a JSON body in time. */
      ok: boolean;
      /** @description The upstream's status, `null` when it did not answer. */
      status_code: number | null;
      latency_ms: number | null;
      /** @description Why the probe failed. */
      error: string | null;
    };
    /** @description A published endpoint. */
    SellerEndpoint: {
      id: components["schemas"]["ResourceId"];
      /**
       * @description `/v1/{slug}/{path_suffix}`.
       * @example /v1/acme-ocr/parse-receipt
       */
      path: string;
      slug: components["schemas"]["Slug"];
      path_suffix: components["schemas"]["PathSuffix"];
      /** Format: uri */
      upstream_url: string;
      /** @description The price per call, atomic units (a decimal string in answers). */
      atomic_price: components["schemas"]["AtomicAmount"];
      unit: string;
      desc: string;
      mode: components["schemas"]["EndpointMode"];
      status: components["schemas"]["EndpointStatus"];
      created_at: components["schemas"]["UnixSeconds"];
      /** @description The latest probe, `null` before the first. */
      last_probe: components["schemas"]["ProbeResult"] | null;
    };
    /** @description A seller's endpoints. */
    SellerEndpointList: {
      wallet: components["schemas"]["Wallet"];
      endpoints: components["schemas"]["SellerEndpoint"][];
    };
    /** @description A soft-deleted endpoint. */
    DeletedEndpoint: {
      id: components["schemas"]["ResourceId"];
      deleted_at: components["schemas"]["UnixSeconds"];
    };
    /** @description Paid calls and earnings of a seller. */
    SellerStats: {
      wallet: components["schemas"]["Wallet"];
      slug: components["schemas"]["Slug"];
      /** @description Paid calls (served or not). */
      calls: number;
      /** @description What buyers paid (served calls or not). */
      paid_atomic: components["schemas"]["AtomicAmount"];
      /** @description Net earnings of served calls (what they paid minus fee). */
      earned_atomic: components["schemas"]["AtomicAmount"];
      /** @description The service's take on served calls. */
      fee_atomic: components["schemas"]["AtomicAmount"];
      /** @description Net earnings not settled yet. */
      withdrawable_atomic: components["schemas"]["AtomicAmount"];
      /** @description Net earnings paid out. */
      settled_atomic: components["schemas"]["AtomicAmount"];
      /** @description Paid calls the upstream did not serve (`upstream_5xx`, `upstream_timeout`, an upstream 5xx passed back); the seller is not paid for them. */
      undelivered_calls: number;
      /** @description What buyers paid for undelivered calls (not refunded, not paid to the seller). */
      undelivered_atomic: components["schemas"]["AtomicAmount"];
      /** @description The same per endpoint (deleted ones included). */
      by_endpoint: components["schemas"]["EndpointStats"][];
      /** @description Start of the counted period. */
      since: components["schemas"]["UnixSeconds"];
      /** @description With `series=daily` only. The figures per UTC day, oldest first (see the `series` parameter). */
      daily?: components["schemas"]["DailyStats"][];
    };
    /** @description A seller's paid calls and earnings of one UTC day (counted from `since` on the first day). */
    DailyStats: {
      /** @description Start of the UTC day. */
      day: components["schemas"]["UnixSeconds"];
      /** @description Paid calls (served or not). */
      calls: number;
      /** @description What buyers paid. */
      paid_atomic: components["schemas"]["AtomicAmount"];
      /** @description Net earnings of served calls. */
      earned_atomic: components["schemas"]["AtomicAmount"];
      /** @description Paid calls the upstream did not serve. */
      undelivered_calls: number;
      /** @description What buyers paid for undelivered calls. */
      undelivered_atomic: components["schemas"]["AtomicAmount"];
    };
    /** @description Statistics of one endpoint; `calls`, `paid_atomic`, `earned_atomic`, `undelivered_calls`, `undelivered_atomic` and `errors` count since `since`. */
    EndpointStats: {
      id: components["schemas"]["ResourceId"];
      path: string;
      status: components["schemas"]["EndpointStatus"];
      /** @description When the endpoint was deleted, `null` while it is published. */
      deleted_at: components["schemas"]["UnixSeconds"] | null;
      calls: number;
      paid_atomic: components["schemas"]["AtomicAmount"];
      earned_atomic: components["schemas"]["AtomicAmount"];
      undelivered_calls: number;
      undelivered_atomic: components["schemas"]["AtomicAmount"];
      /** @description Errors counted for the endpoint (failed probes, upstream 5xx and timeouts, buyers refused while suspended). */
      errors: number;
      last_24h: components["schemas"]["EndpointWindowStats"];
      last_30d: components["schemas"]["EndpointWindowStats"];
    };
    /** @description An endpoint's figures over a recent period. */
    EndpointWindowStats: {
      /** @description Paid calls. */
      calls: number;
      /** @description What buyers paid. */
      paid_atomic: components["schemas"]["AtomicAmount"];
      /** @description Net earnings of served calls (what they paid minus the take rate). */
      earned_atomic: components["schemas"]["AtomicAmount"];
      /** @description Paid calls the upstream did not serve. */
      undelivered_calls: number;
      /** @description What buyers paid for undelivered calls. */
      undelivered_atomic: components["schemas"]["AtomicAmount"];
      errors: number;
      /** @description Median latency of the upstream's successful answers (probes and calls); `null` without data. */
      p50_latency_ms: number | null;
      p95_latency_ms: number | null;
    };
    /** @description How often an error code was answered in one hour. */
    ErrorCount: {
      /** @description Start of the hour. */
      ts: components["schemas"]["UnixSeconds"];
      /**
       * @description The error code: `probe_failed` (a health or activation probe failed), `endpoint_suspended`
       *     (a buyer was refused while suspended), `upstream_5xx`, `upstream_timeout` (paid calls).
       */
      code: string;
      count: number;
    };
    /** @description A payout of a seller's earnings. */
    Payout: {
      id: components["schemas"]["ResourceId"];
      wallet: components["schemas"]["Wallet"];
      chain: components["schemas"]["PayoutChain"];
      /** @description The seller's registered wallet on `chain`. */
      to: string;
      amount_atomic: components["schemas"]["AtomicAmount"];
      /** @enum {string} */
      status: "pending" | "sent" | "failed";
      /** @description The payout transaction, once sent. */
      tx: string | null;
      /** @description Send attempts that failed so far (a failed one is retried with back-off). */
      attempts?: number;
      /** @description The last failure, while the payout is retried. */
      error?: string | null;
      created_at: components["schemas"]["UnixSeconds"];
    };
    /** @description Every error answer. */
    Error: {
      /** @description A stable machine code. */
      error: string;
      /** @description A human-readable explanation. */
      message?: string;
      /** @description What to do next. */
      hint?: string;
      /** @description Validation details, one per failing field. */
      issues?: components["schemas"]["ErrorIssue"][];
      /** @description The request id (same as the `X-Request-Id` header). */
      request_id?: string;
    };
    /** @description One validation failure. */
    ErrorIssue: {
      /**
       * @description The failing field as a dotted path prefixed with the request part: `body.atomic_price`,
       *     `path.wallet`, `query.ts`, `headers.x-timestamp` (`body` for the body itself).
       * @example body.atomic_price
       */
      path: string;
      /** @example must be integer */
      message: string;
      /**
       * @description The JSON Schema keyword that failed (`type`, `required`, `pattern`, ...).
       * @example type
       */
      keyword?: string;
    };
    /** @description The error body with `error` invalid_input. */
    InvalidInputError: components["schemas"]["Error"] & {
      /** @enum {string} */
      error: "invalid_input";
    };
    /** @description The error body with `error` one of: invalid_document, document_too_complex. */
    ToolUnprocessableError: components["schemas"]["Error"] & {
      /** @enum {string} */
      error: "invalid_document" | "document_too_complex";
    };
    /** @description The error body with `error` one of: tools_busy, service_unavailable. */
    ToolsUnavailableError: components["schemas"]["Error"] & {
      /** @enum {string} */
      error: "tools_busy" | "service_unavailable";
    };
    /** @description The error body with `error` processing_timeout. */
    ProcessingTimeoutError: components["schemas"]["Error"] & {
      /** @enum {string} */
      error: "processing_timeout";
    };
    /** @description The error body with `error` tx_already_consumed or payment_identifier_conflict. */
    TxAlreadyConsumedError: components["schemas"]["Error"] & {
      /** @enum {string} */
      error: "tx_already_consumed" | "payment_identifier_conflict";
    };
    /** @description The error body with `error` body_too_large. */
    BodyTooLargeError: components["schemas"]["Error"] & {
      /** @enum {string} */
      error: "body_too_large";
    };
    /** @description The error body with `error` endpoint_not_found. */
    EndpointNotFoundError: components["schemas"]["Error"] & {
      /** @enum {string} */
      error: "endpoint_not_found";
    };
    /** @description The error body with `error` endpoint_suspended. */
    EndpointSuspendedError: components["schemas"]["Error"] & {
      /** @enum {string} */
      error: "endpoint_suspended";
    };
    /** @description The error body with `error` upstream_5xx. */
    Upstream5xxError: components["schemas"]["Error"] & {
      /** @enum {string} */
      error: "upstream_5xx";
    };
    /** @description The error body with `error` upstream_timeout. */
    UpstreamTimeoutError: components["schemas"]["Error"] & {
      /** @enum {string} */
      error: "upstream_timeout";
    };
    /** @description The error body with `error` rate_limited. */
    RateLimitedError: components["schemas"]["Error"] & {
      /** @enum {string} */
      error: "rate_limited";
    };
    /** @description The error body with `error` internal_error. */
    InternalError: components["schemas"]["Error"] & {
      /** @enum {string} */
      error: "internal_error";
    };
    /** @description The error body with `error` invalid_signature. */
    InvalidSignatureError: components["schemas"]["Error"] & {
      /** @enum {string} */
      error: "invalid_signature";
    };
    /** @description The error body with `error` signature_already_used. */
    SignatureAlreadyUsedError: components["schemas"]["Error"] & {
      /** @enum {string} */
      error: "signature_already_used";
    };
    /** @description The error body with `error` signature_required. */
    SignatureRequiredError: components["schemas"]["Error"] & {
      /** @enum {string} */
      error: "signature_required";
    };
    /** @description The error body with `error` invalid_api_key. */
    InvalidApiKeyError: components["schemas"]["Error"] & {
      /** @enum {string} */
      error: "invalid_api_key";
    };
    /** @description The error body with `error` insufficient_scope. */
    InsufficientScopeError: components["schemas"]["Error"] & {
      /** @enum {string} */
      error: "insufficient_scope";
    };
    /** @description What `GET /` answers a client that asks for JSON; the page itself is for browsers. */
    CatalogPointer: {
      /** @example paycall */
      service: string;
      /** @example This page is HTML; the catalog as JSON is at the URLs below. */
      message: string;
      /**
       * @description The catalog in the x402 discovery shape.
       * @example /discovery/resources
       */
      catalog: string;
      /**
       * @description Its full-text search (append the words).
       * @example /discovery/search?query=
       */
      search: string;
      /** @example /v1/_meta */
      meta: string;
      /** @example /docs */
      docs: string;
      /** @example /openapi.yaml */
      openapi: string;
    };
    /** @description The error body with `error` asset_not_found. */
    AssetNotFoundError: components["schemas"]["Error"] & {
      /** @enum {string} */
      error: "asset_not_found";
    };
    /** @description The error body with `error` key_not_found. */
    KeyNotFoundError: components["schemas"]["Error"] & {
      /** @enum {string} */
      error: "key_not_found";
    };
    /** @description The error body with `error` seller_not_found. */
    SellerNotFoundError: components["schemas"]["Error"] & {
      /** @enum {string} */
      error: "seller_not_found";
    };
    /** @description The error body with `error` broadcast_failed. */
    BroadcastFailedError: components["schemas"]["Error"] & {
      /** @enum {string} */
      error: "broadcast_failed";
    };
    /** @description The error body with `error` one of: invalid_json, invalid_input, invalid_wallet, invalid_timestamp. */
    IssueApiKeyBadRequestError: components["schemas"]["Error"] & {
      /** @enum {string} */
      error: "invalid_json" | "invalid_input" | "invalid_wallet" | "invalid_timestamp";
    };
    /** @description The error body with `error` one of: missing_api_key, missing_sig_or_ts, invalid_signature, invalid_api_key, wallet_mismatch. */
    ListApiKeysUnauthorizedError: components["schemas"]["Error"] & {
      /** @enum {string} */
      error: "missing_api_key" | "missing_sig_or_ts" | "invalid_signature" | "invalid_api_key" | "wallet_mismatch";
    };
    /** @description The error body with `error` one of: invalid_wallet, invalid_timestamp. */
    ListApiKeysBadRequestError: components["schemas"]["Error"] & {
      /** @enum {string} */
      error: "invalid_wallet" | "invalid_timestamp";
    };
    /** @description The error body with `error` one of: invalid_id, invalid_wallet, invalid_timestamp. */
    RevokeApiKeyBadRequestError: components["schemas"]["Error"] & {
      /** @enum {string} */
      error: "invalid_id" | "invalid_wallet" | "invalid_timestamp";
    };
    /** @description The error body with `error` one of: missing_signature_headers, invalid_signature, invalid_api_key, wallet_mismatch. */
    RevokeApiKeyUnauthorizedError: components["schemas"]["Error"] & {
      /** @enum {string} */
      error: "missing_signature_headers" | "invalid_signature" | "invalid_api_key" | "wallet_mismatch";
    };
    /** @description The error body with `error` one of: invalid_wallet, invalid_timestamp. */
    AccountBadRequestError: components["schemas"]["Error"] & {
      /** @enum {string} */
      error: "invalid_wallet" | "invalid_timestamp";
    };
    /** @description The error body with `error` one of: missing_sig_or_ts, invalid_signature, invalid_api_key, wallet_mismatch. */
    AccountUnauthorizedError: components["schemas"]["Error"] & {
      /** @enum {string} */
      error: "missing_sig_or_ts" | "invalid_signature" | "invalid_api_key" | "wallet_mismatch";
    };
    /** @description The error body with `error` one of: invalid_json, invalid_input, invalid_slug_format, invalid_wallet, invalid_timestamp. */
    RegisterSellerBadRequestError: components["schemas"]["Error"] & {
      /** @enum {string} */
      error: "invalid_json" | "invalid_input" | "invalid_slug_format" | "invalid_wallet" | "invalid_timestamp";
    };
    /** @description The error body with `error` one of: slug_taken, wallet_already_registered, signature_already_used. */
    RegisterSellerConflictError: components["schemas"]["Error"] & {
      /** @enum {string} */
      error: "slug_taken" | "wallet_already_registered" | "signature_already_used";
    };
    /** @description The error body with `error` one of: invalid_json, invalid_input, invalid_wallet, invalid_timestamp, seller_not_found, seller_suspended, upstream_unreachable. */
    AddEndpointBadRequestError: components["schemas"]["Error"] & {
      /** @enum {string} */
      error: "invalid_json" | "invalid_input" | "invalid_wallet" | "invalid_timestamp" | "seller_not_found" | "seller_suspended" | "upstream_unreachable";
    };
    /** @description The error body with `error` one of: path_taken, signature_already_used. */
    AddEndpointConflictError: components["schemas"]["Error"] & {
      /** @enum {string} */
      error: "path_taken" | "signature_already_used";
    };
    /** @description The error body with `error` one of: invalid_signature, invalid_api_key, wallet_mismatch. */
    SellerWriteUnauthorizedError: components["schemas"]["Error"] & {
      /** @enum {string} */
      error: "invalid_signature" | "invalid_api_key" | "wallet_mismatch";
    };
    /** @description The error body with `error` one of: invalid_input, invalid_wallet, invalid_timestamp, seller_suspended. */
    SellerReadBadRequestError: components["schemas"]["Error"] & {
      /** @enum {string} */
      error: "invalid_input" | "invalid_wallet" | "invalid_timestamp" | "seller_suspended";
    };
    /** @description The error body with `error` one of: missing_sig_or_ts, invalid_signature, invalid_api_key, wallet_mismatch. */
    SellerReadUnauthorizedError: components["schemas"]["Error"] & {
      /** @enum {string} */
      error: "missing_sig_or_ts" | "invalid_signature" | "invalid_api_key" | "wallet_mismatch";
    };
    /** @description The error body with `error` one of: invalid_json, invalid_input, invalid_id, invalid_wallet, invalid_timestamp, seller_not_found, seller_suspended, upstream_unreachable. */
    UpdateEndpointBadRequestError: components["schemas"]["Error"] & {
      /** @enum {string} */
      error: "invalid_json" | "invalid_input" | "invalid_id" | "invalid_wallet" | "invalid_timestamp" | "seller_not_found" | "seller_suspended" | "upstream_unreachable";
    };
    /** @description The error body with `error` one of: invalid_id, invalid_wallet, invalid_timestamp, seller_suspended. */
    DeleteEndpointBadRequestError: components["schemas"]["Error"] & {
      /** @enum {string} */
      error: "invalid_id" | "invalid_wallet" | "invalid_timestamp" | "seller_suspended";
    };
    /** @description The error body with `error` one of: missing_signature_headers, invalid_signature, invalid_api_key, wallet_mismatch. */
    DeleteEndpointUnauthorizedError: components["schemas"]["Error"] & {
      /** @enum {string} */
      error: "missing_signature_headers" | "invalid_signature" | "invalid_api_key" | "wallet_mismatch";
    };
    /** @description The error body with `error` one of: invalid_json, invalid_input, invalid_wallet, invalid_timestamp. */
    ResumeSellerBadRequestError: components["schemas"]["Error"] & {
      /** @enum {string} */
      error: "invalid_json" | "invalid_input" | "invalid_wallet" | "invalid_timestamp";
    };
    /** @description The error body with `error` one of: invalid_json, invalid_input, invalid_wallet, invalid_timestamp, seller_suspended. */
    PayoutBadRequestError: components["schemas"]["Error"] & {
      /** @enum {string} */
      error: "invalid_json" | "invalid_input" | "invalid_wallet" | "invalid_timestamp" | "seller_suspended";
    };
    /** @description The error body with `error` one of: nothing_to_pay, payout_in_progress, signature_already_used. */
    PayoutConflictError: components["schemas"]["Error"] & {
      /** @enum {string} */
      error: "nothing_to_pay" | "payout_in_progress" | "signature_already_used";
    };
    /** @description The error body with `error` one of: invalid_json, invalid_input, invalid_transaction. */
    FacilitatorBadRequestError: components["schemas"]["Error"] & {
      /** @enum {string} */
      error: "invalid_json" | "invalid_input" | "invalid_transaction";
      /**
       * @description With `invalid_transaction`, why the transaction was refused, for example
       *     `malformed`, `not_usdc_transfer`, `wrong_mint`, `wrong_recipient`,
       *     `fee_payer_mismatch`, `fee_payer_in_instruction`, `unsupported_instruction`,
       *     `missing_signature`.
       */
      reason?: string;
    };
  };
  responses: {
    /**
     * @description No valid payment proof: the quote to pay. `error` says why: no proof yet
     *     (`X-PAYMENT header is required`), or why the proof sent was refused; `message` and
     *     `hint` explain it. The quote is the same for the same request until it expires.
     *     The `PAYMENT-REQUIRED` header carries it in x402 v2 form.
     */
    PaymentRequired: {
      headers: {
        "PAYMENT-REQUIRED": components["headers"]["PaymentRequiredV2"];
        [name: string]: unknown;
      };
      content: {
        "application/json": components["schemas"]["PaymentQuote"];
      };
    };
    /**
     * @description The payment's transaction already paid for another call (a transaction pays for exactly
     *     one). Retrying the same receipt with the identical request is not an error: it answers
     *     the stored result. `payment_identifier_conflict`: the v2 payment's
     *     `payment-identifier` id was first sent with another payment or another request.
     */
    TxAlreadyConsumed: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        "application/json": components["schemas"]["TxAlreadyConsumedError"];
      };
    };
    /** @description The request body is over 50 MB. */
    BodyTooLarge: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        "application/json": components["schemas"]["BodyTooLargeError"];
      };
    };
    /** @description The request body is over 4 KB. */
    SellerBodyTooLarge: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        "application/json": components["schemas"]["BodyTooLargeError"];
      };
    };
    /** @description The JSON body is over 64 KB. */
    JsonBodyTooLarge: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        "application/json": components["schemas"]["BodyTooLargeError"];
      };
    };
    /** @description The request carries no document (empty body, or a multipart body without a `file` part). */
    ToolBadRequest: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        "application/json": components["schemas"]["InvalidInputError"];
      };
    };
    /**
     * @description `invalid_document`: the body is not a readable document (a PDF; for invoice extraction
     *     also a PNG or JPEG image), or has more than 2,000 pages; answered before any quote.
     *     `document_too_complex`: processing the paid document needed more memory than a tool
     *     may use; the receipt is not consumed by the failed run.
     */
    InvalidDocument: {
      headers: {
        "X-PAYMENT-RESPONSE": components["headers"]["XPaymentResponse"];
        "PAYMENT-RESPONSE": components["headers"]["PaymentResponseV2"];
        [name: string]: unknown;
      };
      content: {
        "application/json": components["schemas"]["ToolUnprocessableError"];
      };
    };
    /**
     * @description `tools_busy`: too many documents are waiting; retry after `Retry-After` seconds.
     *     `service_unavailable`: the instance is shutting down, payments are not configured, or a
     *     service the call needs (the database, a chain RPC) is unreachable right now; retry
     *     (another instance answers). A paid request may be retried with the same receipt.
     */
    ToolsUnavailable: {
      headers: {
        "Retry-After": components["headers"]["RetryAfter"];
        "X-PAYMENT-RESPONSE": components["headers"]["XPaymentResponse"];
        "PAYMENT-RESPONSE": components["headers"]["PaymentResponseV2"];
        [name: string]: unknown;
      };
      content: {
        "application/json": components["schemas"]["ToolsUnavailableError"];
      };
    };
    /**
     * @description The tool did not finish in time. The receipt is not consumed by a failed run: retrying
     *     the identical request with the same `X-Payment` runs it again.
     */
    ProcessingTimeout: {
      headers: {
        "X-PAYMENT-RESPONSE": components["headers"]["XPaymentResponse"];
        "PAYMENT-RESPONSE": components["headers"]["PaymentResponseV2"];
        [name: string]: unknown;
      };
      content: {
        "application/json": components["schemas"]["ProcessingTimeoutError"];
      };
    };
    /** @description The recovered signer is not the claimed wallet. */
    InvalidSignature: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        "application/json": components["schemas"]["InvalidSignatureError"];
      };
    };
    /** @description This signature already authorised a state change; sign again with a fresh timestamp. */
    SignatureAlreadyUsed: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        "application/json": components["schemas"]["SignatureAlreadyUsedError"];
      };
    };
    /**
     * @description A Bearer key was sent (optional on paid calls, it names the buyer) but it is revoked,
     *     expired or unknown. Payment proof is required with or without a key.
     */
    PaidCallUnauthorized: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        "application/json": components["schemas"]["InvalidApiKeyError"];
      };
    };
    /** @description The Bearer key lacks the scope this operation needs. */
    InsufficientScope: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        "application/json": components["schemas"]["InsufficientScopeError"];
      };
    };
    /** @description The wallet is not a registered seller. */
    SellerNotFound: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        "application/json": components["schemas"]["SellerNotFoundError"];
      };
    };
    /** @description The seller has no endpoint with this id (absent or already deleted). */
    SellerEndpointNotFound: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        "application/json": components["schemas"]["EndpointNotFoundError"];
      };
    };
    /** @description A malformed query parameter (`since`, `series`), the wallet is not an address, the timestamp is stale, or the seller is suspended. */
    SellerReadBadRequest: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        "application/json": components["schemas"]["SellerReadBadRequestError"];
      };
    };
    /** @description No credentials, a wrong signature, a revoked or unknown key, or a key of another wallet. */
    SellerReadUnauthorized: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        "application/json": components["schemas"]["SellerReadUnauthorizedError"];
      };
    };
    /** @description A wrong signature, a revoked or unknown key, or a key of another wallet. */
    SellerWriteUnauthorized: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        "application/json": components["schemas"]["SellerWriteUnauthorizedError"];
      };
    };
    /** @description Too many requests from this client; retry after `Retry-After` seconds. */
    RateLimited: {
      headers: {
        "Retry-After": components["headers"]["RetryAfter"];
        [name: string]: unknown;
      };
      content: {
        "application/json": components["schemas"]["RateLimitedError"];
      };
    };
    /** @description An unexpected failure. `request_id` identifies it in the service's logs. */
    InternalError: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        "application/json": components["schemas"]["InternalError"];
      };
    };
  };
  parameters: {
    /**
     * @description x402 v2 payment proof: base64 of the JSON v2 `PaymentPayload` (`x402Version` 2,
     *     `accepted` echoing the chosen entry of the `PAYMENT-REQUIRED` header, `payload` as in the
     *     v1 `exact` scheme: `{signature, authorization}` on EVM, `{transaction}` on Solana).
     *     Verified through the same rails as `X-Payment`.
     */
    PaymentSignature: string;
    /**
     * @description The seller's wallet, an EVM address (`0x` + 40 hex) or a Solana address (base58).
     * @example 0x2d4C407BBe49438ED859fe965b140dcF1aaB71a9
     */
    WalletPath: components["schemas"]["Wallet"];
    /**
     * @description The endpoint's id.
     * @example 12
     */
    EndpointIdPath: components["schemas"]["ResourceId"];
    /**
     * @description Wallet signature of the operation's action (see "Wallet signatures"). Required with
     *     `ts` unless a Bearer key is sent (`401 missing_sig_or_ts`).
     * @example 0x8c1a5f0c3c0ad5c7e6e1c5b7d4f3a2b1908f7e6d5c4b3a29180f7e6d5c4b3a2918a5f0c3c0ad5c7e6e1c5b7d4f3a2b1908f7e6d5c4b3a29180f7e6d5c4b3a2911b
     */
    Sig: components["schemas"]["Signature"];
    /**
     * @description The signed timestamp (Unix seconds), within [now - 300 s, now + 60 s].
     * @example 1767225600
     */
    Ts: components["schemas"]["UnixSeconds"];
    /**
     * @description Count from this time on (Unix seconds).
     * @example 1767139200
     */
    Since: components["schemas"]["UnixSeconds"];
    /**
     * @description Wallet signature of the operation's action. Required with `X-Timestamp` unless a
     *     Bearer key is sent (`401 missing_signature_headers`).
     */
    XSignature: components["schemas"]["Signature"];
    /** @description The signed timestamp (Unix seconds), within [now - 300 s, now + 60 s]. */
    XTimestamp: components["schemas"]["UnixSeconds"];
    /** @description The signing wallet, with `X-Signature` and `X-Timestamp`. */
    XWallet: components["schemas"]["Wallet"];
  };
  requestBodies: {
    /**
     * @description The PDF: its raw bytes as the body (`application/pdf` or `application/octet-stream`),
     *     or `multipart/form-data` with the file in a part named `file`. At most 50 MB and 2,000
     *     pages.
     */
    PdfDocument: {
      content: {
        "application/octet-stream": components["schemas"]["BinaryFile"];
        "application/pdf": components["schemas"]["BinaryFile"];
        "multipart/form-data": components["schemas"]["FileUpload"];
      };
    };
  };
  headers: {
    /**
     * @description Only this origin, nothing inline: `default-src 'self'`, `script-src 'self'`,
     *     `style-src 'self'`, `connect-src 'self'`, `img-src 'self'`, no frames, no plugins, no
     *     form targets, `frame-ancestors 'none'`.
     */
    ConsoleContentSecurityPolicy: string;
    /**
     * @description Nothing inline and nothing from another host: `default-src 'none'`, scripts, styles
     *     and images from this origin only, the search form submits to this origin, no frames
     *     (`frame-ancestors 'none'`).
     */
    CatalogContentSecurityPolicy: string;
    /**
     * @description Only this origin: `default-src 'self'`, styles from this origin or with the page's
     *     nonce, images and fonts also as `data:` URLs, no frames, no plugins, no form targets.
     */
    DocsContentSecurityPolicy: string;
    /**
     * @description Settlement of the payment that paid this call: base64 of the JSON `PaymentResponse`.
     *     Also sent on an error answered after the payment was settled.
     * @example eyJzdWNjZXNzIjp0cnVlLCJ0cmFuc2FjdGlvbiI6IjB4OWYzYjJjMWQ0ZTVmNmE3YjhjOWQwZTFmMmEzYjRjNWQ2ZTdmOGE5YjBjMWQyZTNmNGE1YjZjN2Q4ZTlmMGExYiIsIm5ldHdvcmsiOiJiYXNlIiwicGF5ZXIiOiIweDJkNEM0MDdCQmU0OTQzOEVEODU5ZmU5NjViMTQwZGNGMWFhQjcxYTkifQ==
     */
    XPaymentResponse: string;
    /**
     * @description x402 v2 settlement of the payment that paid this call: base64 of the JSON
     *     `{success, transaction, network, payer}` with a CAIP-2 `network` (`eip155:8453`,
     *     `eip155:137`, `solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp`).
     */
    PaymentResponseV2: string;
    /**
     * @description The same quote as the body in x402 v2 form: base64 of the JSON v2 `PaymentRequired`
     *     (`x402Version` 2, `resource {url, description, mimeType}`, `accepts` with CAIP-2
     *     networks and `amount`).
     */
    PaymentRequiredV2: string;
    /**
     * @description `true` when this answer is the stored answer of an earlier call paid with the same
     *     receipt for the same request: the call did not run again. Absent otherwise.
     */
    XIdempotentReplay: "true";
    /**
     * @description Seconds to wait before retrying.
     * @example 2
     */
    RetryAfter: number;
    /**
     * @description The transaction hash (EVM) or signature (Solana) of the payment that paid this call.
     * @example 0x9f3b2c1d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d2e3f4a5b6c7d8e9f0a1b
     */
    XServiceTx: string;
  };
  pathItems: never;
}
export type SchemaWellKnownX402 = components['schemas']['WellKnownX402'];
export type SchemaMcpMessage = components['schemas']['McpMessage'];
export type SchemaAtomicAmount = components['schemas']['AtomicAmount'];
export type SchemaUnixSeconds = components['schemas']['UnixSeconds'];
export type SchemaResourceId = components['schemas']['ResourceId'];
export type SchemaNetwork = components['schemas']['Network'];
export type SchemaEvmNetwork = components['schemas']['EvmNetwork'];
export type SchemaPayoutChain = components['schemas']['PayoutChain'];
export type SchemaScope = components['schemas']['Scope'];
export type SchemaEvmAddress = components['schemas']['EvmAddress'];
export type SchemaSolanaAddress = components['schemas']['SolanaAddress'];
export type SchemaWallet = components['schemas']['Wallet'];
export type SchemaSlug = components['schemas']['Slug'];
export type SchemaPathSuffix = components['schemas']['PathSuffix'];
export type SchemaSignature = components['schemas']['Signature'];
export type SchemaEvmTxHash = components['schemas']['EvmTxHash'];
export type SchemaSolanaSignature = components['schemas']['SolanaSignature'];
export type SchemaBinaryFile = components['schemas']['BinaryFile'];
export type SchemaFileUpload = components['schemas']['FileUpload'];
export type SchemaPaymentQuote = components['schemas']['PaymentQuote'];
export type SchemaAcceptEntry = components['schemas']['AcceptEntry'];
export type SchemaExactAcceptEntry = components['schemas']['ExactAcceptEntry'];
export type SchemaTransferWithAuthorizationAcceptEntry = components['schemas']['TransferWithAuthorizationAcceptEntry'];
export type SchemaSplTransferAcceptEntry = components['schemas']['SplTransferAcceptEntry'];
export type SchemaExactExtra = components['schemas']['ExactExtra'];
export type SchemaTransferWithAuthorizationExtra = components['schemas']['TransferWithAuthorizationExtra'];
export type SchemaSplTransferExtra = components['schemas']['SplTransferExtra'];
export type SchemaPaymentReceipt = components['schemas']['PaymentReceipt'];
export type SchemaEvmTransferPayload = components['schemas']['EvmTransferPayload'];
export type SchemaSolanaTransferPayload = components['schemas']['SolanaTransferPayload'];
export type SchemaEvmAuthorizationPayload = components['schemas']['EvmAuthorizationPayload'];
export type SchemaEip3009Authorization = components['schemas']['Eip3009Authorization'];
export type SchemaSolanaTransactionPayload = components['schemas']['SolanaTransactionPayload'];
export type SchemaSessionToken = components['schemas']['SessionToken'];
export type SchemaPaymentResponse = components['schemas']['PaymentResponse'];
export type SchemaSessionTokenInstructions = components['schemas']['SessionTokenInstructions'];
export type SchemaEip712Domain = components['schemas']['Eip712Domain'];
export type SchemaEip712TypedField = components['schemas']['Eip712TypedField'];
export type SchemaFacilitatorRequest = components['schemas']['FacilitatorRequest'];
export type SchemaDiscoveryList = components['schemas']['DiscoveryList'];
export type SchemaReliability = components['schemas']['Reliability'];
export type SchemaDiscoverySearchResult = components['schemas']['DiscoverySearchResult'];
export type SchemaDiscoveredResource = components['schemas']['DiscoveredResource'];
export type SchemaFacilitatorResult = components['schemas']['FacilitatorResult'];
export type SchemaPdfTextResult = components['schemas']['PdfTextResult'];
export type SchemaPdfMdResult = components['schemas']['PdfMdResult'];
export type SchemaPdfJsonResult = components['schemas']['PdfJsonResult'];
export type SchemaPdfJsonOutlineEntry = components['schemas']['PdfJsonOutlineEntry'];
export type SchemaPdfJsonTable = components['schemas']['PdfJsonTable'];
export type SchemaPdfJsonCell = components['schemas']['PdfJsonCell'];
export type SchemaPdfJsonPage = components['schemas']['PdfJsonPage'];
export type SchemaPdfTextBlock = components['schemas']['PdfTextBlock'];
export type SchemaDecimalString = components['schemas']['DecimalString'];
export type SchemaNullableDecimalString = components['schemas']['NullableDecimalString'];
export type SchemaInvoiceResult = components['schemas']['InvoiceResult'];
export type SchemaInvoiceVat = components['schemas']['InvoiceVat'];
export type SchemaInvoiceItem = components['schemas']['InvoiceItem'];
export type SchemaInvoiceConfidence = components['schemas']['InvoiceConfidence'];
export type SchemaConfidence = components['schemas']['Confidence'];
export type SchemaMeta = components['schemas']['Meta'];
export type SchemaMetaEndpoint = components['schemas']['MetaEndpoint'];
export type SchemaHealthCheck = components['schemas']['HealthCheck'];
export type SchemaHealth = components['schemas']['Health'];
export type SchemaIssueApiKeyRequest = components['schemas']['IssueApiKeyRequest'];
export type SchemaIssuedApiKey = components['schemas']['IssuedApiKey'];
export type SchemaApiKey = components['schemas']['ApiKey'];
export type SchemaApiKeyList = components['schemas']['ApiKeyList'];
export type SchemaRevokedApiKey = components['schemas']['RevokedApiKey'];
export type SchemaAccount = components['schemas']['Account'];
export type SchemaSignedRequest = components['schemas']['SignedRequest'];
export type SchemaRegisterSellerRequest = components['schemas']['RegisterSellerRequest'];
export type SchemaChainWallets = components['schemas']['ChainWallets'];
export type SchemaChainSignatures = components['schemas']['ChainSignatures'];
export type SchemaRegisterSellerMultiChain = components['schemas']['RegisterSellerMultiChain'];
export type SchemaRegisterSellerSingleWallet = components['schemas']['RegisterSellerSingleWallet'];
export type SchemaSeller = components['schemas']['Seller'];
export type SchemaResumedSeller = components['schemas']['ResumedSeller'];
export type SchemaEndpointMode = components['schemas']['EndpointMode'];
export type SchemaEndpointStatus = components['schemas']['EndpointStatus'];
export type SchemaAddEndpointRequest = components['schemas']['AddEndpointRequest'];
export type SchemaUpdateEndpointRequest = components['schemas']['UpdateEndpointRequest'];
export type SchemaProbeResult = components['schemas']['ProbeResult'];
export type SchemaSellerEndpoint = components['schemas']['SellerEndpoint'];
export type SchemaSellerEndpointList = components['schemas']['SellerEndpointList'];
export type SchemaDeletedEndpoint = components['schemas']['DeletedEndpoint'];
export type SchemaSellerStats = components['schemas']['SellerStats'];
export type SchemaDailyStats = components['schemas']['DailyStats'];
export type SchemaEndpointStats = components['schemas']['EndpointStats'];
export type SchemaEndpointWindowStats = components['schemas']['EndpointWindowStats'];
export type SchemaErrorCount = components['schemas']['ErrorCount'];
export type SchemaPayout = components['schemas']['Payout'];
export type SchemaError = components['schemas']['Error'];
export type SchemaErrorIssue = components['schemas']['ErrorIssue'];
export type SchemaInvalidInputError = components['schemas']['InvalidInputError'];
export type SchemaToolUnprocessableError = components['schemas']['ToolUnprocessableError'];
export type SchemaToolsUnavailableError = components['schemas']['ToolsUnavailableError'];
export type SchemaProcessingTimeoutError = components['schemas']['ProcessingTimeoutError'];
export type SchemaTxAlreadyConsumedError = components['schemas']['TxAlreadyConsumedError'];
export type SchemaBodyTooLargeError = components['schemas']['BodyTooLargeError'];
export type SchemaEndpointNotFoundError = components['schemas']['EndpointNotFoundError'];
export type SchemaEndpointSuspendedError = components['schemas']['EndpointSuspendedError'];
export type SchemaUpstream5xxError = components['schemas']['Upstream5xxError'];
export type SchemaUpstreamTimeoutError = components['schemas']['UpstreamTimeoutError'];
export type SchemaRateLimitedError = components['schemas']['RateLimitedError'];
export type SchemaInternalError = components['schemas']['InternalError'];
export type SchemaInvalidSignatureError = components['schemas']['InvalidSignatureError'];
export type SchemaSignatureAlreadyUsedError = components['schemas']['SignatureAlreadyUsedError'];
export type SchemaSignatureRequiredError = components['schemas']['SignatureRequiredError'];
export type SchemaInvalidApiKeyError = components['schemas']['InvalidApiKeyError'];
export type SchemaInsufficientScopeError = components['schemas']['InsufficientScopeError'];
export type SchemaCatalogPointer = components['schemas']['CatalogPointer'];
export type SchemaAssetNotFoundError = components['schemas']['AssetNotFoundError'];
export type SchemaKeyNotFoundError = components['schemas']['KeyNotFoundError'];
export type SchemaSellerNotFoundError = components['schemas']['SellerNotFoundError'];
export type SchemaBroadcastFailedError = components['schemas']['BroadcastFailedError'];
export type SchemaIssueApiKeyBadRequestError = components['schemas']['IssueApiKeyBadRequestError'];
export type SchemaListApiKeysUnauthorizedError = components['schemas']['ListApiKeysUnauthorizedError'];
export type SchemaListApiKeysBadRequestError = components['schemas']['ListApiKeysBadRequestError'];
export type SchemaRevokeApiKeyBadRequestError = components['schemas']['RevokeApiKeyBadRequestError'];
export type SchemaRevokeApiKeyUnauthorizedError = components['schemas']['RevokeApiKeyUnauthorizedError'];
export type SchemaAccountBadRequestError = components['schemas']['AccountBadRequestError'];
export type SchemaAccountUnauthorizedError = components['schemas']['AccountUnauthorizedError'];
export type SchemaRegisterSellerBadRequestError = components['schemas']['RegisterSellerBadRequestError'];
export type SchemaRegisterSellerConflictError = components['schemas']['RegisterSellerConflictError'];
export type SchemaAddEndpointBadRequestError = components['schemas']['AddEndpointBadRequestError'];
export type SchemaAddEndpointConflictError = components['schemas']['AddEndpointConflictError'];
export type SchemaSellerWriteUnauthorizedError = components['schemas']['SellerWriteUnauthorizedError'];
export type SchemaSellerReadBadRequestError = components['schemas']['SellerReadBadRequestError'];
export type SchemaSellerReadUnauthorizedError = components['schemas']['SellerReadUnauthorizedError'];
export type SchemaUpdateEndpointBadRequestError = components['schemas']['UpdateEndpointBadRequestError'];
export type SchemaDeleteEndpointBadRequestError = components['schemas']['DeleteEndpointBadRequestError'];
export type SchemaDeleteEndpointUnauthorizedError = components['schemas']['DeleteEndpointUnauthorizedError'];
export type SchemaResumeSellerBadRequestError = components['schemas']['ResumeSellerBadRequestError'];
export type SchemaPayoutBadRequestError = components['schemas']['PayoutBadRequestError'];
export type SchemaPayoutConflictError = components['schemas']['PayoutConflictError'];
export type SchemaFacilitatorBadRequestError = components['schemas']['FacilitatorBadRequestError'];
export type ResponsePaymentRequired = components['responses']['PaymentRequired'];
export type ResponseTxAlreadyConsumed = components['responses']['TxAlreadyConsumed'];
export type ResponseBodyTooLarge = components['responses']['BodyTooLarge'];
export type ResponseSellerBodyTooLarge = components['responses']['SellerBodyTooLarge'];
export type ResponseJsonBodyTooLarge = components['responses']['JsonBodyTooLarge'];
export type ResponseToolBadRequest = components['responses']['ToolBadRequest'];
export type ResponseInvalidDocument = components['responses']['InvalidDocument'];
export type ResponseToolsUnavailable = components['responses']['ToolsUnavailable'];
export type ResponseProcessingTimeout = components['responses']['ProcessingTimeout'];
export type ResponseInvalidSignature = components['responses']['InvalidSignature'];
export type ResponseSignatureAlreadyUsed = components['responses']['SignatureAlreadyUsed'];
export type ResponsePaidCallUnauthorized = components['responses']['PaidCallUnauthorized'];
export type ResponseInsufficientScope = components['responses']['InsufficientScope'];
export type ResponseSellerNotFound = components['responses']['SellerNotFound'];
export type ResponseSellerEndpointNotFound = components['responses']['SellerEndpointNotFound'];
export type ResponseSellerReadBadRequest = components['responses']['SellerReadBadRequest'];
export type ResponseSellerReadUnauthorized = components['responses']['SellerReadUnauthorized'];
export type ResponseSellerWriteUnauthorized = components['responses']['SellerWriteUnauthorized'];
export type ResponseRateLimited = components['responses']['RateLimited'];
export type ResponseInternalError = components['responses']['InternalError'];
export type ParameterPaymentSignature = components['parameters']['PaymentSignature'];
export type ParameterWalletPath = components['parameters']['WalletPath'];
export type ParameterEndpointIdPath = components['parameters']['EndpointIdPath'];
export type ParameterSig = components['parameters']['Sig'];
export type ParameterTs = components['parameters']['Ts'];
export type ParameterSince = components['parameters']['Since'];
export type ParameterXSignature = components['parameters']['XSignature'];
export type ParameterXTimestamp = components['parameters']['XTimestamp'];
export type ParameterXWallet = components['parameters']['XWallet'];
export type RequestBodyPdfDocument = components['requestBodies']['PdfDocument'];
export type HeaderConsoleContentSecurityPolicy = components['headers']['ConsoleContentSecurityPolicy'];
export type HeaderCatalogContentSecurityPolicy = components['headers']['CatalogContentSecurityPolicy'];
export type HeaderDocsContentSecurityPolicy = components['headers']['DocsContentSecurityPolicy'];
export type HeaderXPaymentResponse = components['headers']['XPaymentResponse'];
export type HeaderPaymentResponseV2 = components['headers']['PaymentResponseV2'];
export type HeaderPaymentRequiredV2 = components['headers']['PaymentRequiredV2'];
export type HeaderXIdempotentReplay = components['headers']['XIdempotentReplay'];
export type HeaderRetryAfter = components['headers']['RetryAfter'];
export type HeaderXServiceTx = components['headers']['XServiceTx'];
export type $defs = Record<string, never>;
export interface operations {
  pdfMd: {
    parameters: {
      query?: {
        /**
         * @description How the Markdown marks where each page begins, so an agent can cite a page:
         *     `comment` (the default) puts the HTML comment `<!-- page 7 -->` there (inside a
         *     paragraph when a page break cuts it; Markdown renderers show nothing); `none` leaves
         *     no mark. The price does not depend on it. A page without a text layer is still
         *     reported by its comment.
         */
        page_anchors?: "comment" | "none";
      };
      header?: {
        /**
         * @description x402 v2 payment proof: base64 of the JSON v2 `PaymentPayload` (`x402Version` 2,
         *     `accepted` echoing the chosen entry of the `PAYMENT-REQUIRED` header, `payload` as in the
         *     v1 `exact` scheme: `{signature, authorization}` on EVM, `{transaction}` on Solana).
         *     Verified through the same rails as `X-Payment`.
         */
        "PAYMENT-SIGNATURE"?: components["parameters"]["PaymentSignature"];
      };
      path?: never;
      cookie?: never;
    };
    requestBody: components["requestBodies"]["PdfDocument"];
    responses: {
      /** @description The Markdown of the document. */
      200: {
        headers: {
          "X-PAYMENT-RESPONSE": components["headers"]["XPaymentResponse"];
          "PAYMENT-RESPONSE": components["headers"]["PaymentResponseV2"];
          "X-Idempotent-Replay": components["headers"]["XIdempotentReplay"];
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["PdfMdResult"];
        };
      };
      400: components["responses"]["ToolBadRequest"];
      401: components["responses"]["PaidCallUnauthorized"];
      402: components["responses"]["PaymentRequired"];
      403: components["responses"]["InsufficientScope"];
      409: components["responses"]["TxAlreadyConsumed"];
      413: components["responses"]["BodyTooLarge"];
      422: components["responses"]["InvalidDocument"];
      429: components["responses"]["RateLimited"];
      500: components["responses"]["InternalError"];
      503: components["responses"]["ToolsUnavailable"];
      504: components["responses"]["ProcessingTimeout"];
    };
  };
  pdfText: {
    parameters: {
      query?: never;
      header?: {
        /**
         * @description x402 v2 payment proof: base64 of the JSON v2 `PaymentPayload` (`x402Version` 2,
         *     `accepted` echoing the chosen entry of the `PAYMENT-REQUIRED` header, `payload` as in the
         *     v1 `exact` scheme: `{signature, authorization}` on EVM, `{transaction}` on Solana).
         *     Verified through the same rails as `X-Payment`.
         */
        "PAYMENT-SIGNATURE"?: components["parameters"]["PaymentSignature"];
      };
      path?: never;
      cookie?: never;
    };
    requestBody: components["requestBodies"]["PdfDocument"];
    responses: {
      /** @description The text of the document. */
      200: {
        headers: {
          "X-PAYMENT-RESPONSE": components["headers"]["XPaymentResponse"];
          "PAYMENT-RESPONSE": components["headers"]["PaymentResponseV2"];
          "X-Idempotent-Replay": components["headers"]["XIdempotentReplay"];
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["PdfTextResult"];
        };
      };
      400: components["responses"]["ToolBadRequest"];
      401: components["responses"]["PaidCallUnauthorized"];
      402: components["responses"]["PaymentRequired"];
      403: components["responses"]["InsufficientScope"];
      409: components["responses"]["TxAlreadyConsumed"];
      413: components["responses"]["BodyTooLarge"];
      422: components["responses"]["InvalidDocument"];
      429: components["responses"]["RateLimited"];
      500: components["responses"]["InternalError"];
      503: components["responses"]["ToolsUnavailable"];
      504: components["responses"]["ProcessingTimeout"];
    };
  };
  pdfJson: {
    parameters: {
      query?: never;
      header?: {
        /**
         * @description x402 v2 payment proof: base64 of the JSON v2 `PaymentPayload` (`x402Version` 2,
         *     `accepted` echoing the chosen entry of the `PAYMENT-REQUIRED` header, `payload` as in the
         *     v1 `exact` scheme: `{signature, authorization}` on EVM, `{transaction}` on Solana).
         *     Verified through the same rails as `X-Payment`.
         */
        "PAYMENT-SIGNATURE"?: components["parameters"]["PaymentSignature"];
      };
      path?: never;
      cookie?: never;
    };
    requestBody: components["requestBodies"]["PdfDocument"];
    responses: {
      /** @description The structured pages of the document. */
      200: {
        headers: {
          "X-PAYMENT-RESPONSE": components["headers"]["XPaymentResponse"];
          "PAYMENT-RESPONSE": components["headers"]["PaymentResponseV2"];
          "X-Idempotent-Replay": components["headers"]["XIdempotentReplay"];
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["PdfJsonResult"];
        };
      };
      400: components["responses"]["ToolBadRequest"];
      401: components["responses"]["PaidCallUnauthorized"];
      402: components["responses"]["PaymentRequired"];
      403: components["responses"]["InsufficientScope"];
      409: components["responses"]["TxAlreadyConsumed"];
      413: components["responses"]["BodyTooLarge"];
      422: components["responses"]["InvalidDocument"];
      429: components["responses"]["RateLimited"];
      500: components["responses"]["InternalError"];
      503: components["responses"]["ToolsUnavailable"];
      504: components["responses"]["ProcessingTimeout"];
    };
  };
  invoiceExtract: {
    parameters: {
      query?: never;
      header?: {
        /**
         * @description x402 v2 payment proof: base64 of the JSON v2 `PaymentPayload` (`x402Version` 2,
         *     `accepted` echoing the chosen entry of the `PAYMENT-REQUIRED` header, `payload` as in the
         *     v1 `exact` scheme: `{signature, authorization}` on EVM, `{transaction}` on Solana).
         *     Verified through the same rails as `X-Payment`.
         */
        "PAYMENT-SIGNATURE"?: components["parameters"]["PaymentSignature"];
      };
      path?: never;
      cookie?: never;
    };
    /**
     * @description The invoice: the raw bytes as the body (`application/pdf`, `image/png`, `image/jpeg`
     *     or `application/octet-stream`), or `multipart/form-data` with the file in a part
     *     named `file`. The type is recognised from the content, not from the header.
     */
    requestBody: {
      content: {
        "application/octet-stream": components["schemas"]["BinaryFile"];
        "application/pdf": components["schemas"]["BinaryFile"];
        "image/png": components["schemas"]["BinaryFile"];
        "image/jpeg": components["schemas"]["BinaryFile"];
        "multipart/form-data": components["schemas"]["FileUpload"];
      };
    };
    responses: {
      /** @description The extracted invoice fields. */
      200: {
        headers: {
          "X-PAYMENT-RESPONSE": components["headers"]["XPaymentResponse"];
          "PAYMENT-RESPONSE": components["headers"]["PaymentResponseV2"];
          "X-Idempotent-Replay": components["headers"]["XIdempotentReplay"];
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["InvoiceResult"];
        };
      };
      400: components["responses"]["ToolBadRequest"];
      401: components["responses"]["PaidCallUnauthorized"];
      402: components["responses"]["PaymentRequired"];
      403: components["responses"]["InsufficientScope"];
      409: components["responses"]["TxAlreadyConsumed"];
      413: components["responses"]["BodyTooLarge"];
      422: components["responses"]["InvalidDocument"];
      429: components["responses"]["RateLimited"];
      500: components["responses"]["InternalError"];
      503: components["responses"]["ToolsUnavailable"];
      504: components["responses"]["ProcessingTimeout"];
    };
  };
  callSellerEndpoint: {
    parameters: {
      query?: never;
      header?: {
        /**
         * @description x402 v2 payment proof: base64 of the JSON v2 `PaymentPayload` (`x402Version` 2,
         *     `accepted` echoing the chosen entry of the `PAYMENT-REQUIRED` header, `payload` as in the
         *     v1 `exact` scheme: `{signature, authorization}` on EVM, `{transaction}` on Solana).
         *     Verified through the same rails as `X-Payment`.
         */
        "PAYMENT-SIGNATURE"?: components["parameters"]["PaymentSignature"];
      };
      path: {
        /**
         * @description The seller's slug (`^[a-z0-9-]{3,32}$`). Any other value answers
         *     `404 endpoint_not_found`.
         * @example acme-ocr
         */
        slug: string;
        /**
         * @description The endpoint's path suffix (`^[a-z0-9-]{3,64}$`). Any other value answers
         *     `404 endpoint_not_found`.
         * @example parse-receipt
         */
        path_suffix: string;
      };
      cookie?: never;
    };
    /** @description Any body the seller's endpoint accepts, up to 50 MB, forwarded as it is. */
    requestBody?: {
      content: {
        "application/json": unknown;
        "*/*": components["schemas"]["BinaryFile"];
      };
    };
    responses: {
      /** @description The upstream's answer, passed back with its content type. */
      200: {
        headers: {
          "X-PAYMENT-RESPONSE": components["headers"]["XPaymentResponse"];
          "PAYMENT-RESPONSE": components["headers"]["PaymentResponseV2"];
          "X-Idempotent-Replay": components["headers"]["XIdempotentReplay"];
          [name: string]: unknown;
        };
        content: {
          "application/json": unknown;
          "*/*": components["schemas"]["BinaryFile"];
        };
      };
      /**
       * @description The slug or path suffix is not valid percent-encoded UTF-8 (a bad `%`-escape, bytes
       *     that are not UTF-8, an encoded surrogate) or contains a NUL character; `issues`
       *     names the parameter (`path.slug`, `path.path_suffix`). Answered before any lookup.
       */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["InvalidInputError"];
        };
      };
      401: components["responses"]["PaidCallUnauthorized"];
      402: components["responses"]["PaymentRequired"];
      403: components["responses"]["InsufficientScope"];
      /** @description No published endpoint at this path (or it was deleted). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["EndpointNotFoundError"];
        };
      };
      409: components["responses"]["TxAlreadyConsumed"];
      /**
       * @description The endpoint is suspended after persistent upstream failures. Answered before any
       *     quote: nobody pays for it.
       */
      410: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["EndpointSuspendedError"];
        };
      };
      413: components["responses"]["BodyTooLarge"];
      429: components["responses"]["RateLimited"];
      500: components["responses"]["InternalError"];
      /**
       * @description Proxy mode: the upstream still answered 5xx after the payment was settled and the
       *     retries (up to 60 s). Not refundable; `X-Service-Tx` carries the payment's
       *     transaction.
       */
      502: {
        headers: {
          "X-Service-Tx": components["headers"]["XServiceTx"];
          "X-PAYMENT-RESPONSE": components["headers"]["XPaymentResponse"];
          "PAYMENT-RESPONSE": components["headers"]["PaymentResponseV2"];
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Upstream5xxError"];
        };
      };
      503: components["responses"]["ToolsUnavailable"];
      /**
       * @description Proxy mode: the upstream did not answer within 30 s. Not refundable;
       *     `X-Service-Tx` carries the payment's transaction.
       */
      504: {
        headers: {
          "X-Service-Tx": components["headers"]["XServiceTx"];
          "X-PAYMENT-RESPONSE": components["headers"]["XPaymentResponse"];
          "PAYMENT-RESPONSE": components["headers"]["PaymentResponseV2"];
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["UpstreamTimeoutError"];
        };
      };
      /**
       * @description Paywall mode: the upstream's answer with any other status, passed back as it is
       *     (status, content type and body are the seller's).
       */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "*/*": components["schemas"]["BinaryFile"];
        };
      };
    };
  };
  getMeta: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The catalog. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Meta"];
        };
      };
      429: components["responses"]["RateLimited"];
      500: components["responses"]["InternalError"];
    };
  };
  getWellKnownX402: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The discovery document. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["WellKnownX402"];
        };
      };
      429: components["responses"]["RateLimited"];
      500: components["responses"]["InternalError"];
    };
  };
  getHealth: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The service is up (`ok` or `degraded`). */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Health"];
        };
      };
      429: components["responses"]["RateLimited"];
      500: components["responses"]["InternalError"];
      /** @description The database is unreachable (`status` is `down`). */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Health"];
        };
      };
    };
  };
  getDocs: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The HTML page. */
      200: {
        headers: {
          "Content-Security-Policy": components["headers"]["DocsContentSecurityPolicy"];
          [name: string]: unknown;
        };
        content: {
          /** @example <!doctype html><html lang="en"><head><title>paycall API reference</title>… */
          "text/html": string;
        };
      };
      429: components["responses"]["RateLimited"];
      500: components["responses"]["InternalError"];
    };
  };
  getDocsAsset: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /**
         * @description The file name, as `GET /docs` links it.
         * @example scalar-api-reference-1.72.1.js
         */
        asset: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The file. */
      200: {
        headers: {
          /** @description `public, max-age=31536000, immutable`. */
          "Cache-Control"?: string;
          [name: string]: unknown;
        };
        content: {
          "text/javascript": string;
        };
      };
      /** @description The file name is not valid percent-encoded UTF-8. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["InvalidInputError"];
        };
      };
      /** @description No such file. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["AssetNotFoundError"];
        };
      };
      429: components["responses"]["RateLimited"];
      500: components["responses"]["InternalError"];
    };
  };
  getOpenApi: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The contract. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example openapi: 3.1.0
           *     info:
           *       title: paycall
           */
          "application/yaml": string;
        };
      };
      429: components["responses"]["RateLimited"];
      500: components["responses"]["InternalError"];
    };
  };
  getCatalogPage: {
    parameters: {
      query?: {
        /**
         * @description Words to search for (the page then lists only the matches, best first).
         * @example pdf markdown
         */
        q?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The page, or for a JSON client where the catalog is. */
      200: {
        headers: {
          "Content-Security-Policy": components["headers"]["CatalogContentSecurityPolicy"];
          /** @description `Accept`: the same URL answers HTML or JSON. */
          Vary?: string;
          [name: string]: unknown;
        };
        content: {
          /** @example <!doctype html><html lang="en"><head><title>paycall catalog</title>… */
          "text/html": string;
          /**
           * @example {
           *       "service": "paycall",
           *       "message": "This page is HTML; the catalog as JSON is at the URLs below.",
           *       "catalog": "/discovery/resources",
           *       "search": "/discovery/search?query=",
           *       "meta": "/v1/_meta",
           *       "docs": "/docs",
           *       "openapi": "/openapi.yaml"
           *     }
           */
          "application/json": components["schemas"]["CatalogPointer"];
        };
      };
      /** @description A query value is not valid percent-encoded UTF-8 or is too long. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["InvalidInputError"];
        };
      };
      429: components["responses"]["RateLimited"];
      500: components["responses"]["InternalError"];
    };
  };
  getCatalogAsset: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /**
         * @description The file name, as `GET /` links it.
         * @example catalog-3f9a1c2b7d.css
         */
        asset: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The file. */
      200: {
        headers: {
          /** @description `public, max-age=31536000, immutable`. */
          "Cache-Control"?: string;
          [name: string]: unknown;
        };
        content: {
          "text/css": string;
          "text/javascript": string;
          "image/svg+xml": string;
        };
      };
      /** @description The file name is not valid percent-encoded UTF-8. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["InvalidInputError"];
        };
      };
      /** @description No such file. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["AssetNotFoundError"];
        };
      };
      429: components["responses"]["RateLimited"];
      500: components["responses"]["InternalError"];
    };
  };
  getConsole: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The HTML page. */
      200: {
        headers: {
          "Content-Security-Policy": components["headers"]["ConsoleContentSecurityPolicy"];
          [name: string]: unknown;
        };
        content: {
          /** @example <!doctype html><html lang="en"><head><title>paycall seller console</title>… */
          "text/html": string;
        };
      };
      429: components["responses"]["RateLimited"];
      500: components["responses"]["InternalError"];
    };
  };
  getConsoleAsset: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /**
         * @description The file name, as `GET /console` links it.
         * @example console.js
         */
        asset: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The file. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "text/javascript": string;
          "text/css": string;
          "image/svg+xml": string;
        };
      };
      /** @description The file name is not valid percent-encoded UTF-8. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["InvalidInputError"];
        };
      };
      /** @description No such file. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["AssetNotFoundError"];
        };
      };
      429: components["responses"]["RateLimited"];
      500: components["responses"]["InternalError"];
    };
  };
  listApiKeys: {
    parameters: {
      query?: {
        /**
         * @description The wallet (with `sig` and `ts`, when no Bearer key is sent).
         * @example 0x2d4C407BBe49438ED859fe965b140dcF1aaB71a9
         */
        wallet?: components["schemas"]["Wallet"];
        /**
         * @description Wallet signature of the operation's action (see "Wallet signatures"). Required with
         *     `ts` unless a Bearer key is sent (`401 missing_sig_or_ts`).
         * @example 0x8c1a5f0c3c0ad5c7e6e1c5b7d4f3a2b1908f7e6d5c4b3a29180f7e6d5c4b3a2918a5f0c3c0ad5c7e6e1c5b7d4f3a2b1908f7e6d5c4b3a29180f7e6d5c4b3a2911b
         */
        sig?: components["parameters"]["Sig"];
        /**
         * @description The signed timestamp (Unix seconds), within [now - 300 s, now + 60 s].
         * @example 1767225600
         */
        ts?: components["parameters"]["Ts"];
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The keys of the wallet. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ApiKeyList"];
        };
      };
      /** @description The wallet is not an address or the timestamp is stale. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ListApiKeysBadRequestError"];
        };
      };
      /** @description No credentials, a wrong signature, a revoked, expired or unknown key, or a key sent with the `wallet` of another wallet. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ListApiKeysUnauthorizedError"];
        };
      };
      403: components["responses"]["InsufficientScope"];
      429: components["responses"]["RateLimited"];
      500: components["responses"]["InternalError"];
    };
  };
  issueApiKey: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": components["schemas"]["IssueApiKeyRequest"];
      };
    };
    responses: {
      /** @description The new key. Store `api_key` now, it is not shown again. */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["IssuedApiKey"];
        };
      };
      /** @description The body is not valid JSON, misses a field, or carries an invalid wallet or a stale timestamp. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["IssueApiKeyBadRequestError"];
        };
      };
      401: components["responses"]["InvalidSignature"];
      /** @description A Bearer API key was sent; issuing a key needs a wallet signature. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["SignatureRequiredError"];
        };
      };
      409: components["responses"]["SignatureAlreadyUsed"];
      413: components["responses"]["JsonBodyTooLarge"];
      429: components["responses"]["RateLimited"];
      500: components["responses"]["InternalError"];
    };
  };
  revokeApiKey: {
    parameters: {
      query?: never;
      header?: {
        /** @description The signing wallet, with `X-Signature` and `X-Timestamp`. */
        "X-Wallet"?: components["parameters"]["XWallet"];
        /**
         * @description Wallet signature of the operation's action. Required with `X-Timestamp` unless a
         *     Bearer key is sent (`401 missing_signature_headers`).
         */
        "X-Signature"?: components["parameters"]["XSignature"];
        /** @description The signed timestamp (Unix seconds), within [now - 300 s, now + 60 s]. */
        "X-Timestamp"?: components["parameters"]["XTimestamp"];
      };
      path: {
        /**
         * @description The key's id.
         * @example 7
         */
        id: components["schemas"]["ResourceId"];
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The key is revoked. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["RevokedApiKey"];
        };
      };
      /** @description The id is not a positive integer, `X-Wallet` is not a wallet address, or the timestamp is stale. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["RevokeApiKeyBadRequestError"];
        };
      };
      /** @description Missing or wrong credentials. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["RevokeApiKeyUnauthorizedError"];
        };
      };
      /** @description No key with this id (or a Bearer key asked to revoke another key). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["KeyNotFoundError"];
        };
      };
      409: components["responses"]["SignatureAlreadyUsed"];
      429: components["responses"]["RateLimited"];
      500: components["responses"]["InternalError"];
    };
  };
  getAccount: {
    parameters: {
      query?: {
        /**
         * @description The wallet (with `sig` and `ts`, when no Bearer key is sent).
         * @example 0x2d4C407BBe49438ED859fe965b140dcF1aaB71a9
         */
        wallet?: components["schemas"]["Wallet"];
        /**
         * @description Wallet signature of the operation's action (see "Wallet signatures"). Required with
         *     `ts` unless a Bearer key is sent (`401 missing_sig_or_ts`).
         * @example 0x8c1a5f0c3c0ad5c7e6e1c5b7d4f3a2b1908f7e6d5c4b3a29180f7e6d5c4b3a2918a5f0c3c0ad5c7e6e1c5b7d4f3a2b1908f7e6d5c4b3a29180f7e6d5c4b3a2911b
         */
        sig?: components["parameters"]["Sig"];
        /**
         * @description The signed timestamp (Unix seconds), within [now - 300 s, now + 60 s].
         * @example 1767225600
         */
        ts?: components["parameters"]["Ts"];
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The account. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Account"];
        };
      };
      /** @description The wallet is not an address or the timestamp is stale. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["AccountBadRequestError"];
        };
      };
      /** @description No credentials, a wrong signature, a revoked, expired or unknown key, or a key sent with the `wallet` of another wallet. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["AccountUnauthorizedError"];
        };
      };
      403: components["responses"]["InsufficientScope"];
      429: components["responses"]["RateLimited"];
      500: components["responses"]["InternalError"];
    };
  };
  registerSeller: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": components["schemas"]["RegisterSellerRequest"];
      };
    };
    responses: {
      /** @description The seller record. */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Seller"];
        };
      };
      /** @description Malformed body, slug, wallet or timestamp, or a `payout_chain` this deployment does not pay out on. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["RegisterSellerBadRequestError"];
        };
      };
      401: components["responses"]["InvalidSignature"];
      /** @description The slug or the wallet is taken, or the signature was used already. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["RegisterSellerConflictError"];
        };
      };
      413: components["responses"]["SellerBodyTooLarge"];
      429: components["responses"]["RateLimited"];
      500: components["responses"]["InternalError"];
    };
  };
  listSellerEndpoints: {
    parameters: {
      query?: {
        /**
         * @description Wallet signature of the operation's action (see "Wallet signatures"). Required with
         *     `ts` unless a Bearer key is sent (`401 missing_sig_or_ts`).
         * @example 0x8c1a5f0c3c0ad5c7e6e1c5b7d4f3a2b1908f7e6d5c4b3a29180f7e6d5c4b3a2918a5f0c3c0ad5c7e6e1c5b7d4f3a2b1908f7e6d5c4b3a29180f7e6d5c4b3a2911b
         */
        sig?: components["parameters"]["Sig"];
        /**
         * @description The signed timestamp (Unix seconds), within [now - 300 s, now + 60 s].
         * @example 1767225600
         */
        ts?: components["parameters"]["Ts"];
      };
      header?: never;
      path: {
        /**
         * @description The seller's wallet, an EVM address (`0x` + 40 hex) or a Solana address (base58).
         * @example 0x2d4C407BBe49438ED859fe965b140dcF1aaB71a9
         */
        wallet: components["parameters"]["WalletPath"];
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The endpoints. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["SellerEndpointList"];
        };
      };
      400: components["responses"]["SellerReadBadRequest"];
      401: components["responses"]["SellerReadUnauthorized"];
      403: components["responses"]["InsufficientScope"];
      404: components["responses"]["SellerNotFound"];
      429: components["responses"]["RateLimited"];
      500: components["responses"]["InternalError"];
    };
  };
  addSellerEndpoint: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /**
         * @description The seller's wallet, an EVM address (`0x` + 40 hex) or a Solana address (base58).
         * @example 0x2d4C407BBe49438ED859fe965b140dcF1aaB71a9
         */
        wallet: components["parameters"]["WalletPath"];
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": components["schemas"]["AddEndpointRequest"];
      };
    };
    responses: {
      /** @description The endpoint, `pending` until its probes pass. */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["SellerEndpoint"];
        };
      };
      /** @description Malformed body, wallet or timestamp; no seller; suspended seller; or the upstream failed its probe. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["AddEndpointBadRequestError"];
        };
      };
      401: components["responses"]["SellerWriteUnauthorized"];
      403: components["responses"]["InsufficientScope"];
      /** @description The path is already published, or the signature was used already. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["AddEndpointConflictError"];
        };
      };
      413: components["responses"]["SellerBodyTooLarge"];
      429: components["responses"]["RateLimited"];
      500: components["responses"]["InternalError"];
    };
  };
  deleteSellerEndpoint: {
    parameters: {
      query?: never;
      header?: {
        /**
         * @description Wallet signature of the operation's action. Required with `X-Timestamp` unless a
         *     Bearer key is sent (`401 missing_signature_headers`).
         */
        "X-Signature"?: components["parameters"]["XSignature"];
        /** @description The signed timestamp (Unix seconds), within [now - 300 s, now + 60 s]. */
        "X-Timestamp"?: components["parameters"]["XTimestamp"];
      };
      path: {
        /**
         * @description The seller's wallet, an EVM address (`0x` + 40 hex) or a Solana address (base58).
         * @example 0x2d4C407BBe49438ED859fe965b140dcF1aaB71a9
         */
        wallet: components["parameters"]["WalletPath"];
        /**
         * @description The endpoint's id.
         * @example 12
         */
        id: components["parameters"]["EndpointIdPath"];
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The endpoint is deleted. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["DeletedEndpoint"];
        };
      };
      /** @description Malformed id, wallet or timestamp, or a suspended seller. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["DeleteEndpointBadRequestError"];
        };
      };
      /** @description Missing or wrong credentials, or the endpoint belongs to another wallet. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["DeleteEndpointUnauthorizedError"];
        };
      };
      403: components["responses"]["InsufficientScope"];
      404: components["responses"]["SellerEndpointNotFound"];
      409: components["responses"]["SignatureAlreadyUsed"];
      429: components["responses"]["RateLimited"];
      500: components["responses"]["InternalError"];
    };
  };
  updateSellerEndpoint: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /**
         * @description The seller's wallet, an EVM address (`0x` + 40 hex) or a Solana address (base58).
         * @example 0x2d4C407BBe49438ED859fe965b140dcF1aaB71a9
         */
        wallet: components["parameters"]["WalletPath"];
        /**
         * @description The endpoint's id.
         * @example 12
         */
        id: components["parameters"]["EndpointIdPath"];
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": components["schemas"]["UpdateEndpointRequest"];
      };
    };
    responses: {
      /** @description The updated endpoint. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["SellerEndpoint"];
        };
      };
      /** @description Malformed body, id, wallet or timestamp; no seller; suspended seller; or the new upstream failed its probe. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["UpdateEndpointBadRequestError"];
        };
      };
      401: components["responses"]["SellerWriteUnauthorized"];
      403: components["responses"]["InsufficientScope"];
      404: components["responses"]["SellerEndpointNotFound"];
      409: components["responses"]["SignatureAlreadyUsed"];
      413: components["responses"]["JsonBodyTooLarge"];
      429: components["responses"]["RateLimited"];
      500: components["responses"]["InternalError"];
    };
  };
  resumeSeller: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /**
         * @description The seller's wallet, an EVM address (`0x` + 40 hex) or a Solana address (base58).
         * @example 0x2d4C407BBe49438ED859fe965b140dcF1aaB71a9
         */
        wallet: components["parameters"]["WalletPath"];
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": components["schemas"]["SignedRequest"];
      };
    };
    responses: {
      /** @description The seller, with the ids of the endpoints put back to `pending`. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ResumedSeller"];
        };
      };
      /** @description Malformed body, wallet or timestamp. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ResumeSellerBadRequestError"];
        };
      };
      401: components["responses"]["InvalidSignature"];
      404: components["responses"]["SellerNotFound"];
      409: components["responses"]["SignatureAlreadyUsed"];
      413: components["responses"]["JsonBodyTooLarge"];
      429: components["responses"]["RateLimited"];
      500: components["responses"]["InternalError"];
    };
  };
  getSellerStats: {
    parameters: {
      query?: {
        /**
         * @description Wallet signature of the operation's action (see "Wallet signatures"). Required with
         *     `ts` unless a Bearer key is sent (`401 missing_sig_or_ts`).
         * @example 0x8c1a5f0c3c0ad5c7e6e1c5b7d4f3a2b1908f7e6d5c4b3a29180f7e6d5c4b3a2918a5f0c3c0ad5c7e6e1c5b7d4f3a2b1908f7e6d5c4b3a29180f7e6d5c4b3a2911b
         */
        sig?: components["parameters"]["Sig"];
        /**
         * @description The signed timestamp (Unix seconds), within [now - 300 s, now + 60 s].
         * @example 1767225600
         */
        ts?: components["parameters"]["Ts"];
        /**
         * @description Count from this time on (Unix seconds).
         * @example 1767139200
         */
        since?: components["parameters"]["Since"];
        /**
         * @description `daily` adds `daily`: the seller's figures per UTC day, every day from the day of
         *     `since` (at most the last 90 days of the period) to today, days without calls as
         *     zeros. Charts read it (the seller console does).
         * @example daily
         */
        series?: "daily";
      };
      header?: never;
      path: {
        /**
         * @description The seller's wallet, an EVM address (`0x` + 40 hex) or a Solana address (base58).
         * @example 0x2d4C407BBe49438ED859fe965b140dcF1aaB71a9
         */
        wallet: components["parameters"]["WalletPath"];
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The statistics. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["SellerStats"];
        };
      };
      400: components["responses"]["SellerReadBadRequest"];
      401: components["responses"]["SellerReadUnauthorized"];
      403: components["responses"]["InsufficientScope"];
      404: components["responses"]["SellerNotFound"];
      429: components["responses"]["RateLimited"];
      500: components["responses"]["InternalError"];
    };
  };
  getSellerErrors: {
    parameters: {
      query?: {
        /**
         * @description Wallet signature of the operation's action (see "Wallet signatures"). Required with
         *     `ts` unless a Bearer key is sent (`401 missing_sig_or_ts`).
         * @example 0x8c1a5f0c3c0ad5c7e6e1c5b7d4f3a2b1908f7e6d5c4b3a29180f7e6d5c4b3a2918a5f0c3c0ad5c7e6e1c5b7d4f3a2b1908f7e6d5c4b3a29180f7e6d5c4b3a2911b
         */
        sig?: components["parameters"]["Sig"];
        /**
         * @description The signed timestamp (Unix seconds), within [now - 300 s, now + 60 s].
         * @example 1767225600
         */
        ts?: components["parameters"]["Ts"];
        /**
         * @description Count from this time on (Unix seconds).
         * @example 1767139200
         */
        since?: components["parameters"]["Since"];
      };
      header?: never;
      path: {
        /**
         * @description The seller's wallet, an EVM address (`0x` + 40 hex) or a Solana address (base58).
         * @example 0x2d4C407BBe49438ED859fe965b140dcF1aaB71a9
         */
        wallet: components["parameters"]["WalletPath"];
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The error counts. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ErrorCount"][];
        };
      };
      400: components["responses"]["SellerReadBadRequest"];
      401: components["responses"]["SellerReadUnauthorized"];
      403: components["responses"]["InsufficientScope"];
      404: components["responses"]["SellerNotFound"];
      429: components["responses"]["RateLimited"];
      500: components["responses"]["InternalError"];
    };
  };
  requestPayout: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /**
         * @description The seller's wallet, an EVM address (`0x` + 40 hex) or a Solana address (base58).
         * @example 0x2d4C407BBe49438ED859fe965b140dcF1aaB71a9
         */
        wallet: components["parameters"]["WalletPath"];
      };
      cookie?: never;
    };
    requestBody?: {
      content: {
        "application/json": components["schemas"]["SignedRequest"];
      };
    };
    responses: {
      /** @description The payout is queued. */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Payout"];
        };
      };
      /** @description Malformed body, wallet or timestamp, or a suspended seller. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["PayoutBadRequestError"];
        };
      };
      401: components["responses"]["SellerWriteUnauthorized"];
      403: components["responses"]["InsufficientScope"];
      404: components["responses"]["SellerNotFound"];
      /** @description Nothing to pay, a payout already in progress, or a signature used already. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["PayoutConflictError"];
        };
      };
      413: components["responses"]["JsonBodyTooLarge"];
      429: components["responses"]["RateLimited"];
      500: components["responses"]["InternalError"];
    };
  };
  solanaFacilitator: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": components["schemas"]["FacilitatorRequest"];
      };
    };
    responses: {
      /** @description Broadcast; `signature` is the transaction signature. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["FacilitatorResult"];
        };
      };
      /**
       * @description The body is malformed, or the transaction is not an acceptable USDC transfer, or it
       *     landed and failed (`reason` says why: e.g. `invalid_transaction`, `unexpected_signers`,
       *     `amount_below_minimum`, `priority_fee_too_high`, `compute_limit_too_high`,
       *     `fee_payer_in_instruction`, `wrong_mint`, `wrong_destination`, `insufficient_funds`, `reverted`).
       */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["FacilitatorBadRequestError"];
        };
      };
      413: components["responses"]["JsonBodyTooLarge"];
      429: components["responses"]["RateLimited"];
      500: components["responses"]["InternalError"];
      /** @description The transaction was sent but the Solana RPC did not confirm it in time (it may still land). */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["BroadcastFailedError"];
        };
      };
    };
  };
  mcp: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": components["schemas"]["McpMessage"];
      };
    };
    responses: {
      /** @description The JSON-RPC answer (a tool result, the tool list, or a JSON-RPC error). */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["McpMessage"];
        };
      };
      /** @description A notification or a response from the client was accepted (no body). */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /**
       * @description Not a JSON-RPC message the MCP transport accepts: a JSON-RPC error body (`error.code`
       *     -32700 parse error, -32600 invalid request). A body that is not JSON, or not an object
       *     with `jsonrpc`, is refused before the transport with the service's error body
       *     (`invalid_json`, `invalid_input`).
       */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["McpMessage"];
        };
      };
      /** @description The client does not accept both application/json and text/event-stream (a JSON-RPC error body). */
      406: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["McpMessage"];
        };
      };
      413: components["responses"]["JsonBodyTooLarge"];
      429: components["responses"]["RateLimited"];
      500: components["responses"]["InternalError"];
    };
  };
  listDiscoveryResources: {
    parameters: {
      query?: {
        /** @description Resource type; `http` (the default) or `mcp` (each entry as its tool on `/mcp`); any other type lists nothing. */
        type?: string;
        /** @description Only resources with an accept paying this address (case-insensitive); only the matching accepts are shown. */
        payTo?: string;
        /** @description Only resources with an accept of this payment scheme (`exact`, `transfer-with-authorization`, `spl-transfer`). */
        scheme?: string;
        /** @description Only resources with an accept on this network, by our name (`base`) or CAIP-2 (`eip155:8453`). */
        network?: string;
        /** @description Items per page, 1 to 100 (default 20). */
        limit?: number;
        /** @description Items to skip (default 0). */
        offset?: number;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description One page of the catalog. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["DiscoveryList"];
        };
      };
      /** @description A query parameter is out of range. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["InvalidInputError"];
        };
      };
      429: components["responses"]["RateLimited"];
      500: components["responses"]["InternalError"];
    };
  };
  searchDiscoveryResources: {
    parameters: {
      query: {
        /** @description What to look for, 1 to 256 characters. */
        query: string;
        /** @description Resource type; `http` (the default) or `mcp` (each entry as its tool on `/mcp`); any other type finds nothing. */
        type?: string;
        /** @description Only resources with an accept paying this address (case-insensitive); only the matching accepts are shown. */
        payTo?: string;
        /** @description Only resources with an accept of this payment scheme (`exact`, `transfer-with-authorization`, `spl-transfer`). */
        scheme?: string;
        /** @description Only resources with an accept on this network, by our name (`base`) or CAIP-2 (`eip155:8453`). */
        network?: string;
        /** @description Results per page, 1 to 100 (default 20). */
        limit?: number;
        /** @description The `pagination.cursor` of the previous page. */
        cursor?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description One page of matches, best first. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["DiscoverySearchResult"];
        };
      };
      /** @description The query is empty or too long, or a parameter is out of range. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["InvalidInputError"];
        };
      };
      429: components["responses"]["RateLimited"];
      500: components["responses"]["InternalError"];
    };
  };
  getSessionToken: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The token instructions. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["SessionTokenInstructions"];
        };
      };
      429: components["responses"]["RateLimited"];
      500: components["responses"]["InternalError"];
    };
  };
}
