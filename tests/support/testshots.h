// SPDX-License-Identifier: MIT
#pragma once

// Screenshots for the docs, taken by the GUI tests when GATEHOUSE_TEST_SHOTS
// names a folder: pages of the real window at the two sizes the docs show,
// light and dark. Header-only: only the GUI tests link the widgets.

#include <mainwindow.h>
#include <theme.h>

#include <QList>
#include <QSize>
#include <QString>
#include <QTest>

#include <utility>

namespace gatehouse::test {

inline bool shotsWanted()
{
    return qEnvironmentVariableIsSet("GATEHOUSE_TEST_SHOTS");
}

// Each page (a name for the file, its index in the window) at 1280x800 and
// 1920x1080, light and dark, into
// $GATEHOUSE_TEST_SHOTS/<what>-<name>-<width>x<height>-<light|dark>.png; the
// window is left light, at its size before, on its page before.
inline void saveShots(MainWindow &window, const QString &what,
                      const QList<std::pair<QString, int>> &pages)
{
    const QString dir = qEnvironmentVariable("GATEHOUSE_TEST_SHOTS");
    const QSize before = window.size();
    const int pageBefore = window.currentPage();
    for (const auto scheme : {theme::Scheme::Light, theme::Scheme::Dark}) {
        theme::apply(scheme);
        for (const QSize size : {QSize(1280, 800), QSize(1920, 1080)}) {
            window.resize(size);
            for (const auto &[name, index] : pages) {
                window.showPage(index);
                QTest::qWait(400);
                window.grab().save(QStringLiteral("%1/%2-%3-%4x%5-%6.png")
                                       .arg(dir, what, name)
                                       .arg(size.width())
                                       .arg(size.height())
                                       .arg(scheme == theme::Scheme::Light
                                                ? QStringLiteral("light")
                                                : QStringLiteral("dark")));
            }
        }
    }
    theme::apply(theme::Scheme::Light);
    window.resize(before);
    window.showPage(pageBefore);
}

} // namespace gatehouse::test
