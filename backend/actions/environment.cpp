// SPDX-License-Identifier: MIT
#include "environment.h"

namespace gatehouse {

Environment Environment::named(const QString &label)
{
    return {label, defaultColour(label)};
}

Environment::Colour Environment::defaultColour(const QString &label)
{
    const QString l = label.trimmed();
    if (Environment{l, Colour::Grey}.isProduction())
        return Colour::Red;
    if (l.startsWith(QLatin1String("stag"), Qt::CaseInsensitive))
        return Colour::Amber;
    if (l.startsWith(QLatin1String("dev"), Qt::CaseInsensitive))
        return Colour::Green;
    return Colour::Grey;
}

QStringList Environment::presets()
{
    return {QStringLiteral("production"), QStringLiteral("staging"), QStringLiteral("development")};
}

QString Environment::colourName(Colour colour)
{
    switch (colour) {
    case Colour::Red:
        return QStringLiteral("red");
    case Colour::Amber:
        return QStringLiteral("amber");
    case Colour::Green:
        return QStringLiteral("green");
    case Colour::Blue:
        return QStringLiteral("blue");
    case Colour::Grey:
        break;
    }
    return QStringLiteral("grey");
}

QStringList Environment::colourNames()
{
    QStringList names;
    for (Colour c : {Colour::Red, Colour::Amber, Colour::Green, Colour::Blue, Colour::Grey})
        names << colourName(c);
    return names;
}

std::optional<Environment::Colour> Environment::colourFromName(const QString &name)
{
    const QString n = name.trimmed().toLower();
    for (Colour c : {Colour::Red, Colour::Amber, Colour::Green, Colour::Blue, Colour::Grey}) {
        if (n == colourName(c))
            return c;
    }
    if (n == QLatin1String("gray"))
        return Colour::Grey;
    return std::nullopt;
}

bool Environment::isProduction() const
{
    return label.trimmed().startsWith(QLatin1String("prod"), Qt::CaseInsensitive);
}

QString Environment::shown() const
{
    return label.trimmed().toUpper();
}

QString Environment::titled(const QString &title) const
{
    return isSet() ? QStringLiteral("[%1] %2").arg(shown(), title) : title;
}

bool Environment::typedBack(const QString &typed) const
{
    return isSet() && typed.trimmed().compare(label.trimmed(), Qt::CaseInsensitive) == 0;
}

} // namespace gatehouse
