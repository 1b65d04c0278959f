// SPDX-License-Identifier: MIT
#pragma once

#include <QByteArray>
#include <QString>
#include <QStringList>

#include <optional>

namespace gatehouse {

// What a user hands Gatehouse by name (files on the command line or in the
// connection dialog) and what an error sentence echoes back of it.

// A value echoed in an error sentence (a URL, host, key, file name) is cut to
// this many characters, followed by "… (N bytes)" with its full length.
inline constexpr qsizetype EchoCutChars = 200;

// value itself when it has at most EchoCutChars characters, else its first
// EchoCutChars characters + "… (N bytes)"; control characters are shown as
// "?", so an echo stays one line.
QString echoed(const QString &value);
QString echoed(const QByteArray &value);

// Reads a small file given by the user: regular files only (a FIFO, device,
// socket or directory is refused without a blocking open or read), at most
// maxBytes (never reads more than maxBytes + 1). what names it for the error
// sentence ("Profile", "--cacert"): e.g. "Profile /dev/zero is not a regular
// file (it is a character device)." Resources (":/...") are read as they are.
std::optional<QByteArray> readSmallFile(const QString &path, qint64 maxBytes, const QString &what,
                                        QString *error);

// Sentences joined into one with "; ", each without its final full stop
// ("refused."; "timed out." -> "refused; timed out"): no ".;" in a message.
QString joinClauses(const QStringList &sentences);

// "512 bytes", "3.2 MiB": sizes in error sentences.
QString sizeText(qint64 bytes);

// The TLS files of an endpoint (--cacert, --cert, --key), at most this size.
inline constexpr qint64 TlsFileMaxBytes = 1024 * 1024;

enum class PemContent { Certificates, PrivateKey };
// Reads a TLS file (readSmallFile) and checks it holds at least one PEM
// certificate, or a PEM private key (RSA or EC, unencrypted); otherwise
// nothing, and *error names the file and what is wrong with it.
std::optional<QByteArray> readPemFile(const QString &path, PemContent content, const QString &what,
                                      QString *error);

} // namespace gatehouse
