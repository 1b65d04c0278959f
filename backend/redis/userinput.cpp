// SPDX-License-Identifier: MIT
#include "userinput.h"

#include <QDir>
#include <QFile>
#include <QLocale>
#include <QSslCertificate>
#include <QSslKey>

#ifdef Q_OS_UNIX
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

namespace gatehouse {

namespace {

QString fileName(const QString &path)
{
    return echoed(QDir::toNativeSeparators(path));
}

#ifdef Q_OS_UNIX
QString kindOf(mode_t mode)
{
    if (S_ISDIR(mode))
        return QStringLiteral("a directory");
    if (S_ISFIFO(mode))
        return QStringLiteral("a FIFO");
    if (S_ISCHR(mode))
        return QStringLiteral("a character device");
    if (S_ISBLK(mode))
        return QStringLiteral("a block device");
    if (S_ISSOCK(mode))
        return QStringLiteral("a socket");
    return QStringLiteral("not a plain file");
}

QString whyNot(int err)
{
    switch (err) {
    case ENOENT:
    case ENOTDIR:
        return QStringLiteral("does not exist");
    case EACCES:
    case EPERM:
        return QStringLiteral("cannot be read: permission denied");
    default:
        return QStringLiteral("cannot be read: %1").arg(QString::fromLocal8Bit(std::strerror(err)));
    }
}
#endif

} // namespace

QString joinClauses(const QStringList &sentences)
{
    QStringList clauses;
    clauses.reserve(sentences.size());
    for (QString s : sentences) {
        s = s.trimmed();
        while (s.endsWith(QLatin1Char('.')) && !s.endsWith(QLatin1String("...")))
            s.chop(1);
        if (!s.isEmpty())
            clauses << s;
    }
    return clauses.join(QLatin1String("; "));
}

QString echoed(const QString &value)
{
    QString shown = value.size() > EchoCutChars ? value.left(EchoCutChars) : value;
    for (QChar &c : shown) {
        if (c.category() == QChar::Other_Control)
            c = QLatin1Char('?');
    }
    if (value.size() > EchoCutChars)
        shown += QStringLiteral("\u2026 (%1 bytes)").arg(value.toUtf8().size());
    return shown;
}

QString echoed(const QByteArray &value)
{
    if (value.size() <= EchoCutChars)
        return echoed(QString::fromUtf8(value));
    return echoed(QString::fromUtf8(value.left(EchoCutChars))).left(EchoCutChars)
           + QStringLiteral("\u2026 (%1 bytes)").arg(value.size());
}

QString sizeText(qint64 bytes)
{
    if (bytes < 1024)
        return QStringLiteral("%1 bytes").arg(bytes);
    if (bytes % (1024 * 1024) == 0)
        return QStringLiteral("%1 MiB").arg(bytes / (1024 * 1024));
    return QLocale::c().formattedDataSize(bytes, 1, QLocale::DataSizeIecFormat);
}

std::optional<QByteArray> readSmallFile(const QString &path, qint64 maxBytes, const QString &what,
                                        QString *error)
{
    const auto fail = [&](const QString &problem) {
        if (error)
            *error = QStringLiteral("%1 %2 %3.").arg(what, fileName(path), problem);
        return std::nullopt;
    };
    const auto tooBig = [&](qint64 size) {
        return fail(QStringLiteral("is %1; the limit is %2")
                        .arg(size > maxBytes ? sizeText(size)
                                             : QStringLiteral("larger than ") + sizeText(maxBytes),
                             sizeText(maxBytes)));
    };
    if (path.isEmpty())
        return fail(QStringLiteral("is an empty file name"));
    if (path.startsWith(QLatin1Char(':'))) { // a resource built into Gatehouse
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly))
            return fail(QStringLiteral("does not exist"));
        QByteArray data = file.read(maxBytes + 1);
        if (data.size() > maxBytes)
            return tooBig(file.size());
        return data;
    }
#ifdef Q_OS_UNIX
    const QByteArray native = QFile::encodeName(path);
    struct stat st;
    if (::stat(native.constData(), &st) != 0)
        return fail(whyNot(errno));
    if (!S_ISREG(st.st_mode))
        return fail(QStringLiteral("is not a regular file (it is %1)").arg(kindOf(st.st_mode)));
    if (st.st_size > maxBytes)
        return tooBig(st.st_size);
    // O_NONBLOCK: if the path was swapped for a FIFO since stat(), open() does
    // not wait for a writer; fstat() below refuses it.
    const int fd = ::open(native.constData(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return fail(whyNot(errno));
    struct Closer
    {
        int fd;
        ~Closer() { ::close(fd); }
    } closer{fd};
    if (::fstat(fd, &st) != 0)
        return fail(whyNot(errno));
    if (!S_ISREG(st.st_mode))
        return fail(QStringLiteral("is not a regular file (it is %1)").arg(kindOf(st.st_mode)));
    QByteArray data;
    data.resize(qsizetype(std::min<qint64>(st.st_size, maxBytes) + 1));
    qsizetype got = 0;
    for (;;) {
        if (got == data.size()) {
            if (got > maxBytes)
                break;
            data.resize(qsizetype(std::min<qint64>(maxBytes + 1, 2 * got + 4096)));
        }
        const ssize_t n = ::read(fd, data.data() + got, size_t(data.size() - got));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return fail(whyNot(errno));
        if (n == 0)
            break;
        got += n;
    }
    data.truncate(got);
    if (got > maxBytes)
        return tooBig(got);
    return data;
#else
    QFileInfo info(path);
    if (!info.exists())
        return fail(QStringLiteral("does not exist"));
    if (!info.isFile())
        return fail(QStringLiteral("is not a regular file"));
    if (info.size() > maxBytes)
        return tooBig(info.size());
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return fail(QStringLiteral("cannot be read: %1").arg(file.errorString()));
    QByteArray data = file.read(maxBytes + 1);
    if (data.size() > maxBytes)
        return tooBig(data.size());
    return data;
#endif
}

std::optional<QByteArray> readPemFile(const QString &path, PemContent content, const QString &what,
                                      QString *error)
{
    std::optional<QByteArray> data = readSmallFile(path, TlsFileMaxBytes, what, error);
    if (!data)
        return std::nullopt;
    const auto fail = [&](const QString &problem) {
        if (error)
            *error = QStringLiteral("%1 %2 %3.").arg(what, fileName(path), problem);
        return std::nullopt;
    };
    if (data->trimmed().isEmpty())
        return fail(content == PemContent::Certificates
                        ? QStringLiteral("is empty; expected a PEM certificate")
                        : QStringLiteral("is empty; expected a PEM private key"));
    if (content == PemContent::Certificates) {
        if (QSslCertificate::fromData(*data, QSsl::Pem).isEmpty())
            return fail(QStringLiteral("holds no PEM certificate (a \"-----BEGIN "
                                       "CERTIFICATE-----\" block)"));
        return data;
    }
    if (QSslKey(*data, QSsl::Rsa).isNull() && QSslKey(*data, QSsl::Ec).isNull())
        return fail(QStringLiteral("holds no PEM private key (RSA or EC, not encrypted)"));
    return data;
}

} // namespace gatehouse
