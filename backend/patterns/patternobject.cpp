// SPDX-License-Identifier: MIT
#include "patternobject.h"

#include "patternunit.h"

namespace gatehouse {

QString evidenceKindId(Evidence::Kind kind)
{
    switch (kind) {
    case Evidence::Kind::Structure:
        return QStringLiteral("structure");
    case Evidence::Kind::Name:
        return QStringLiteral("name");
    case Evidence::Kind::Family:
        return QStringLiteral("family");
    case Evidence::Kind::Profile:
        return QStringLiteral("profile");
    case Evidence::Kind::Behaviour:
        return QStringLiteral("behaviour");
    }
    return QString();
}

int evidenceScore(const QList<Evidence> &evidence)
{
    int score = 0;
    for (const Evidence &e : evidence)
        score += e.weight;
    return score;
}

QList<QByteArray> PatternObject::keys() const
{
    QList<QByteArray> all;
    if (!PatternUnit::of(kind).keyType().isEmpty()) // a token family's key is a prefix
        all.append(key);
    for (const QByteArray &k : related) {
        if (!k.isEmpty())
            all.append(k);
    }
    all.append(members);
    return all;
}

PatternObject &SharedObject::edit()
{
    if (!m_d)
        m_d = std::make_shared<PatternObject>();
    else if (m_d.use_count() > 1)
        m_d = std::make_shared<PatternObject>(*m_d);
    return *m_d;
}

const PatternObject &SharedObject::empty()
{
    static const PatternObject none;
    return none;
}

} // namespace gatehouse
