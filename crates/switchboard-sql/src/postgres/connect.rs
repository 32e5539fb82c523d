//! From a connection URL to a driver configuration and a TLS connector.
//!
//! Read-only is put in the **startup packet** (`options`), so it holds from
//! the first byte of the session: `default_transaction_read_only=on`,
//! `statement_timeout`, `lock_timeout` and
//! `idle_in_transaction_session_timeout`. Any `options` in the URL are
//! replaced by ours.
//!
//! `sslmode` follows libpq's meanings, with rustls and the public CA roots
//! (webpki-roots), or only the certificates of the PEM file `sslrootcert`
//! names (then `require` verifies the chain, as in libpq):
//!
//! - `disable`: plain TCP;
//! - `prefer` (the default, as in libpq): TLS when the server offers it,
//!   plain otherwise; the certificate is not verified, as in libpq (an
//!   active attacker can downgrade `prefer` anyway; use `verify-full`);
//! - `require`: TLS or nothing, the certificate not verified (libpq's
//!   meaning without a root certificate file);
//! - `verify-ca`: TLS with a certificate chaining to a public root, any name;
//! - `verify-full`: that, and the name must match the host.

use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::CryptoProvider;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{CertificateError, ClientConfig, DigitallySignedStruct, SignatureScheme};
use tokio_postgres::config::SslMode;
use tokio_postgres::{Config, NoTls};
use tokio_postgres_rustls::MakeRustlsConnect;

use crate::{Error, Options};

/// How TLS is used, from `sslmode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TlsMode {
    Disable,
    Prefer,
    Require,
    VerifyCa,
    VerifyFull,
}

/// The connector a connection (and a cancel request) goes through.
#[derive(Clone)]
pub(crate) enum Tls {
    /// Plain TCP (`sslmode=disable`).
    Plain,
    /// rustls with the verifier `sslmode` asks for.
    Rustls(MakeRustlsConnect),
}

impl std::fmt::Debug for Tls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Tls::Plain => "Tls::Plain",
            Tls::Rustls(_) => "Tls::Rustls",
        })
    }
}

/// Connects with `config` through `tls`, the whole opening (TCP, TLS,
/// startup and authentication) within the configuration's connect timeout:
/// the driver's own timeout covers the TCP connect only, so a server that
/// accepts and never answers would hold a call forever. The connection's
/// task runs on the current runtime until the client is dropped.
pub(crate) async fn open(config: &Config, tls: &Tls) -> Result<tokio_postgres::Client, Error> {
    let limit = config.get_connect_timeout().copied().unwrap_or(DEFAULT_CONNECT_TIMEOUT);
    tokio::time::timeout(limit, open_unbounded(config, tls))
        .await
        .map_err(|_| {
            Error::Connect(format!(
                "the server did not complete the connection (startup, TLS, authentication) within the \
                 connect timeout ({limit:?})"
            ))
        })?
        .map_err(|e| connect_error(&e))
}

/// Used when a configuration names no connect timeout (ours always does).
const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// What went wrong opening a connection, in the server's words when it
/// answered (SQLSTATE and message: "28P01: password authentication failed
/// for user …"), else the driver's and its cause's. The driver's own text
/// for a server error is only "db error"; none of these holds the URL or
/// the password.
pub(crate) fn connect_error(e: &tokio_postgres::Error) -> Error {
    if let Some(db) = e.as_db_error() {
        return Error::Connect(format!("the server refused: {}: {}", db.code().code(), db.message()));
    }
    match std::error::Error::source(e) {
        Some(cause) => Error::Connect(format!("{e}: {cause}")),
        None => Error::Connect(e.to_string()),
    }
}

async fn open_unbounded(config: &Config, tls: &Tls) -> Result<tokio_postgres::Client, tokio_postgres::Error> {
    match tls {
        Tls::Plain => {
            let (client, connection) = config.connect(NoTls).await?;
            tokio::spawn(async move {
                let _ = connection.await;
            });
            Ok(client)
        }
        Tls::Rustls(connector) => {
            let (client, connection) = config.connect(connector.clone()).await?;
            tokio::spawn(async move {
                let _ = connection.await;
            });
            Ok(client)
        }
    }
}

/// Asks the server to cancel what `token`'s session is running.
pub(crate) async fn cancel(token: &tokio_postgres::CancelToken, tls: &Tls) {
    let _ = match tls {
        Tls::Plain => token.cancel_query(NoTls).await,
        Tls::Rustls(connector) => token.cancel_query(connector.clone()).await,
    };
}

/// The driver configuration and TLS connector for `url`.
pub(crate) fn configure(
    url: &str,
    password: Option<&str>,
    options: &Options,
) -> Result<(Config, Tls), Error> {
    let (url, ssl) = take_params(url, &["sslmode", "sslrootcert"]);
    let mut mode = match ssl[0].as_deref() {
        None => TlsMode::Prefer,
        Some(value) => parse_sslmode(value)?,
    };
    let roots = match &ssl[1] {
        Some(file) => {
            // As libpq: with a root certificate file, `require` verifies the chain.
            if mode == TlsMode::Require {
                mode = TlsMode::VerifyCa;
            }
            Some(read_roots(file)?)
        }
        None => None,
    };
    let mut config = Config::from_str(&url)
        .map_err(|e| Error::Connect(format!("the connection URL does not parse: {e}")))?;
    if let Some(password) = password {
        config.password(password);
    }
    config.options(startup_options(options));
    config.application_name("switchboard");
    config.connect_timeout(options.connect_timeout);
    config.ssl_mode(match mode {
        TlsMode::Disable => SslMode::Disable,
        TlsMode::Prefer => SslMode::Prefer,
        _ => SslMode::Require,
    });
    let tls = match mode {
        TlsMode::Disable => Tls::Plain,
        _ => Tls::Rustls(MakeRustlsConnect::new(client_config(mode, roots)?)),
    };
    Ok((config, tls))
}

/// `-c name=value` settings of the startup packet.
fn startup_options(options: &Options) -> String {
    let ms = |d: Duration| d.as_millis().max(1);
    let timeout = ms(options.statement_timeout);
    // A lock wait never outlasts the statement; an open transaction left
    // idle (a client gone mid-call) is ended by the server.
    format!(
        "-c default_transaction_read_only=on -c statement_timeout={timeout} -c lock_timeout={timeout} \
         -c idle_in_transaction_session_timeout={}",
        timeout.saturating_mul(2).max(10_000)
    )
}

/// Removes the parameters `keys` from the URL (query parameters of a
/// `postgres://` URL, or `key=value` words) and returns their values in
/// the order of `keys`: the driver knows only three of libpq's five
/// `sslmode` values and no `sslrootcert`.
fn take_params(url: &str, keys: &[&str]) -> (String, Vec<Option<String>>) {
    let mut values = vec![None; keys.len()];
    let mut take = |part: &str| -> bool {
        let Some((key, value)) = part.split_once('=') else { return true };
        match keys.iter().position(|k| *k == key) {
            Some(at) => {
                values[at] = Some(percent_decode(value));
                false
            }
            None => true,
        }
    };
    let rest = if url.contains("://") {
        match url.split_once('?') {
            Some((base, query)) => {
                let kept: Vec<&str> = query.split('&').filter(|part| take(part)).collect();
                if kept.is_empty() { base.to_owned() } else { format!("{base}?{}", kept.join("&")) }
            }
            None => url.to_owned(),
        }
    } else {
        url.split_whitespace().filter(|part| take(part)).collect::<Vec<_>>().join(" ")
    };
    (rest, values)
}

fn percent_decode(value: &str) -> String {
    let bytes = value.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes.get(i + 1..i + 3).and_then(|h| std::str::from_utf8(h).ok());
        match (bytes[i], hex.and_then(|h| u8::from_str_radix(h, 16).ok())) {
            (b'%', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (byte, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn parse_sslmode(value: &str) -> Result<TlsMode, Error> {
    Ok(match value {
        "disable" => TlsMode::Disable,
        "prefer" | "allow" => TlsMode::Prefer,
        "require" => TlsMode::Require,
        "verify-ca" => TlsMode::VerifyCa,
        "verify-full" => TlsMode::VerifyFull,
        other => {
            return Err(Error::Connect(format!(
                "sslmode={other} is not one of disable, prefer, require, verify-ca, verify-full"
            )));
        }
    })
}

/// The certificates of a PEM file, as the only trusted roots.
fn read_roots(file: &str) -> Result<rustls::RootCertStore, Error> {
    use rustls::pki_types::pem::PemObject;
    let failed = |e: &dyn std::fmt::Display| Error::Connect(format!("sslrootcert {file}: {e}"));
    let mut roots = rustls::RootCertStore::empty();
    for cert in CertificateDer::pem_file_iter(file).map_err(|e| failed(&e))? {
        roots.add(cert.map_err(|e| failed(&e))?).map_err(|e| failed(&e))?;
    }
    if roots.is_empty() {
        return Err(failed(&"no certificate in the file"));
    }
    Ok(roots)
}

fn provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

fn client_config(mode: TlsMode, roots: Option<rustls::RootCertStore>) -> Result<ClientConfig, Error> {
    let builder = ClientConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .map_err(|e| Error::Connect(format!("TLS: {e}")))?;
    let roots = Arc::new(
        roots.unwrap_or_else(|| rustls::RootCertStore { roots: webpki_roots::TLS_SERVER_ROOTS.to_vec() }),
    );
    let config = match mode {
        TlsMode::VerifyFull => builder.with_root_certificates(roots).with_no_client_auth(),
        TlsMode::VerifyCa => {
            let inner = rustls::client::WebPkiServerVerifier::builder_with_provider(roots, provider())
                .build()
                .map_err(|e| Error::Connect(format!("TLS: {e}")))?;
            builder
                .dangerous()
                .with_custom_certificate_verifier(Arc::new(AnyName { inner }))
                .with_no_client_auth()
        }
        _ => builder
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(Unverified { provider: provider() }))
            .with_no_client_auth(),
    };
    Ok(config)
}

/// `verify-ca`: the chain must verify; the name need not match.
#[derive(Debug)]
struct AnyName {
    inner: Arc<rustls::client::WebPkiServerVerifier>,
}

impl ServerCertVerifier for AnyName {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        match self.inner.verify_server_cert(end_entity, intermediates, server_name, ocsp, now) {
            Err(rustls::Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }
    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.inner.verify_tls12_signature(message, cert, dss)
    }
    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.inner.verify_tls13_signature(message, cert, dss)
    }
    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.inner.supported_verify_schemes()
    }
}

/// `prefer` and `require`: encryption without authenticating the server
/// (libpq's meaning); the handshake signatures are still checked.
#[derive(Debug)]
struct Unverified {
    provider: Arc<CryptoProvider>,
}

impl ServerCertVerifier for Unverified {
    fn verify_server_cert(
        &self,
        _: &CertificateDer<'_>,
        _: &[CertificateDer<'_>],
        _: &ServerName<'_>,
        _: &[u8],
        _: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }
    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }
    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }
    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider.signature_verification_algorithms.supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ssl_parameters_are_taken_from_the_url() {
        let keys = ["sslmode", "sslrootcert"];
        let (url, values) = take_params(
            "postgres://u@h/db?sslmode=verify-full&application_name=x&sslrootcert=%2Fca.pem",
            &keys,
        );
        assert_eq!(url, "postgres://u@h/db?application_name=x");
        assert_eq!(values, [Some("verify-full".to_owned()), Some("/ca.pem".to_owned())]);
        let (url, values) = take_params("postgres://u@h/db?sslmode=disable", &keys);
        assert_eq!((url.as_str(), values[0].as_deref()), ("postgres://u@h/db", Some("disable")));
        // Only whole keys: a password holding `sslmode=` is left alone.
        let (url, values) = take_params("host=h password=xsslmode=disable sslmode=require user=u", &keys);
        assert_eq!(url, "host=h password=xsslmode=disable user=u");
        assert_eq!(values[0].as_deref(), Some("require"));
        assert!(parse_sslmode("sometimes").is_err());
        assert!(configure("postgres://h/db?sslmode=verify-ca", None, &Options::default()).is_ok());
        assert!(matches!(
            configure("postgres://h/db?sslrootcert=/nonexistent.pem", None, &Options::default()),
            Err(Error::Connect(m)) if m.contains("/nonexistent.pem")
        ));
    }
}
