// SPDX-License-Identifier: MIT
#include "otherfamilymodel.h"

#include <patterns/presentation.h>
#include <redis/redisvalue.h>

#include <QHash>
#include <QLocale>
#include <QSet>

namespace gatehouse {

QByteArray otherFamilyModelRowKey(const OtherFamily &f)
{
    return f.family + '\0' + f.type;
}

OtherFamilyModel::OtherFamilyModel(QObject *parent)
    : KeyedRowsModel(parent)
{}

QString OtherFamilyModel::kindText(const QString &kind)
{
    QString text = kind;
    return text.replace(QLatin1Char('-'), QLatin1Char(' '));
}

void OtherFamilyModel::setFamilies(const QList<OtherFamily> &families)
{
    setRows(families);
}

qint64 OtherFamilyModel::totalKeys() const
{
    qint64 keys = 0;
    for (const OtherFamily &f : m_rows)
        keys += f.keys;
    return keys;
}

int OtherFamilyModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant OtherFamilyModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Family:
        return tr("Family");
    case Kind:
        return tr("Kind");
    case Type:
        return tr("Type");
    case Keys:
        return tr("Keys");
    case Memory:
        return tr("Memory (sampled)");
    case Ttl:
        return tr("TTL");
    }
    return {};
}

QVariant OtherFamilyModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= m_rows.size())
        return {};
    const OtherFamily &f = m_rows.at(index.row());
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case Family:
            return printableBytes(f.family, 120);
        case Kind:
            return kindText(f.kind);
        case Type:
            return QString::fromLatin1(f.type);
        case Keys:
            return f.keys;
        case Memory:
            return f.estimatedBytes < 0
                       ? tr("unknown")
                       : QString(QStringLiteral("~") + formatBytes(f.estimatedBytes));
        case Ttl:
            if (f.withTtl == 0)
                return tr("none");
            return QString((f.minTtlMs == f.maxTtlMs
                                ? formatMs(f.minTtlMs)
                                : tr("%1 to %2").arg(formatMs(f.minTtlMs), formatMs(f.maxTtlMs)))
                           + (f.withTtl < f.keys
                                  ? tr(" (%1%2 of %3 keys)")
                                        .arg(f.keysRead < f.keys ? tr("about ") : QString())
                                        .arg(f.withTtl)
                                        .arg(f.keys)
                                  : QString()));
        }
        return {};
    case Qt::ToolTipRole:
        switch (index.column()) {
        case Memory:
            return f.estimatedBytes < 0
                       ? tr("MEMORY USAGE could not be read (not permitted to this user, or "
                            "no key sampled).")
                       : tr("MEMORY USAGE of %n key(s), times the family's %1 keys.", nullptr,
                            int(f.sampledKeys))
                             .arg(f.keys);
        case Ttl:
            if (f.keysRead < f.keys)
                return tr("The shortest and longest time to live of the first %1 keys read, "
                          "about %2 of the family's %3 keys have one: the family was judged "
                          "ordinary on its first keys, and the rest only counted.")
                    .arg(f.keysRead)
                    .arg(f.withTtl)
                    .arg(f.keys);
            return tr("The shortest and longest time to live of the %1 keys that have one "
                      "(as scanned).")
                .arg(f.withTtl);
        default: {
            QStringList keys;
            for (const QByteArray &k : f.sampleKeys)
                keys << printableBytes(k, 100);
            return keys.isEmpty() ? QString() : tr("Keys: %1").arg(keys.join(u", "));
        }
        }
    case Qt::TextAlignmentRole:
        return index.column() == Keys || index.column() == Memory
                   ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                   : QVariant();
    case SortRole:
        switch (index.column()) {
        case Keys:
            return f.keys;
        case Memory:
            return f.estimatedBytes;
        case Ttl:
            return f.withTtl == 0 ? -1 : f.maxTtlMs;
        default:
            return data(index, Qt::DisplayRole).toString().toLower();
        }
    case FamilyRole:
        return f.family;
    default:
        return {};
    }
}

} // namespace gatehouse
